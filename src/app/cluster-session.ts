// One running cluster: connects to every host (bounded fan-out), applies the start
// plan, waits for the scheduler to confirm readiness, and tears everything down.
import pLimit from 'p-limit';
import type { ClusterSpec, HostSpec } from '../config/spec.js';
import { desiredProcesses, plan, type DesiredProcess } from '../cluster/plan.js';
import type { ExitInfo, RunningProcess } from '../cluster/ports.js';
import { schedulerArgv, schedulerEnv, workerArgv, workerEnv } from '../dask/argv.js';
import { describeExit } from '../dask/diagnose.js';
import { SchedulerClient } from '../dask/scheduler-client.js';
import { ExpectedError } from '../errors.js';
import type { EventBus } from '../events/types.js';
import { ShellHostRunner } from './host-runner.js';
import { Ring } from './line-splitter.js';
import { waitForScheduler } from './readiness.js';
import { dashboardUrl, dashboardForward, schedulerAddress } from './addresses.js';
import type { ShellPort } from './shell-port.js';
import { teardown, type TeardownOptions, type TeardownResult } from './teardown.js';

export interface SessionOptions {
  spec: ClusterSpec;
  clusterId: string;
  bus: EventBus;
  fanout: number;
  requireAll: boolean;
  readyTimeoutMs: number;
  openShell(host: HostSpec): Promise<ShellPort>;
}

export interface Tracked {
  desired: DesiredProcess;
  proc: RunningProcess;
  tail: Ring<string>;
  stopping: boolean;
  /** Set once the process has ended. */
  exit?: ExitInfo;
}

export class ClusterSession {
  readonly runners = new Map<string, ShellHostRunner>();
  readonly procs = new Map<string, Tracked>();
  readonly failedHosts = new Map<string, string>();
  readonly address: string;
  client?: SchedulerClient;
  workers: { name: string; address: string }[] = [];

  constructor(private readonly o: SessionOptions) {
    this.address = schedulerAddress(o.spec);
  }

  /** Resolves once the scheduler confirms readiness; throws (after cleaning up) if it cannot. */
  async start(): Promise<void> {
    const { spec, bus } = this.o;
    const hosts = uniqueHosts(spec);
    const actions = plan(desiredProcesses(spec), []);
    const limit = pLimit(Math.max(1, this.o.fanout));
    await Promise.all(
      hosts.map((h) =>
        limit(async () => {
          const mine = actions.flatMap((a) => (a.kind === 'start' && a.process.host === h.name ? [a.process] : []));
          await this.startHost(h, mine);
        }),
      ),
    );
    const schedulerFailure = this.failedHosts.get(spec.schedulerHost.name);
    if (schedulerFailure !== undefined) throw await this.fatal(`scheduler host ${spec.schedulerHost.name} failed: ${schedulerFailure}`);
    await this.confirmReady();
    if (this.o.requireAll && this.failedHosts.size) {
      throw await this.fatal(`--require-all: ${this.failedHosts.size} host(s) failed: ${[...this.failedHosts.keys()].join(', ')}`);
    }
    bus.emit({
      kind: 'cluster-up',
      schedulerAddress: this.address,
      dashboardUrl: dashboardUrl(spec),
      workers: this.workers,
      failedHosts: [...this.failedHosts.keys()],
    });
  }

  private async startHost(h: HostSpec, processes: DesiredProcess[]): Promise<void> {
    const { bus, clusterId } = this.o;
    bus.emit({ kind: 'host-state', host: h.name, state: 'connecting' });
    let runner: ShellHostRunner;
    try {
      const shell = await this.o.openShell(h);
      runner = new ShellHostRunner({ host: h.name, clusterId, setup: h.setup, shell });
      this.runners.set(h.name, runner);
    } catch (err) {
      // SSH errors already start with the host's name; the event carries it too.
      const text = errorText(err);
      return this.failHost(h.name, text.startsWith(`${h.name}: `) ? text.slice(h.name.length + 2) : text);
    }
    bus.emit({ kind: 'host-state', host: h.name, state: 'starting' });
    for (const d of processes) {
      try {
        await this.startProcess(runner, h, d);
      } catch (err) {
        return this.failHost(h.name, `could not start ${d.name}: ${errorText(err)}`);
      }
    }
  }

  private async startProcess(runner: ShellHostRunner, h: HostSpec, d: DesiredProcess): Promise<void> {
    const { spec, bus } = this.o;
    const argv =
      d.role === 'scheduler'
        ? schedulerArgv(h.remotePython, spec.schedulerOptions)
        : workerArgv(h.remotePython, this.address, d.name, h.workerOptions);
    const env = { ...h.env, ...(d.role === 'scheduler' ? schedulerEnv() : workerEnv()) };
    const proc = await runner.start({ name: d.name, host: h.name, role: d.role, argv, env });
    const t: Tracked = { desired: d, proc, tail: new Ring(30), stopping: false };
    this.procs.set(d.name, t);
    proc.onLine((stream, line) => {
      t.tail.push(line);
      bus.emit({ kind: 'process-line', host: h.name, name: d.name, stream, line });
    });
    proc.pid.then((pid) => bus.emit({ kind: 'process-started', host: h.name, name: d.name, pid }), () => {});
    void proc.exited.then((e) => {
      t.exit = e;
      bus.emit({ kind: 'process-exit', host: h.name, name: d.name, code: e.code, signal: e.signal, expected: t.stopping });
    });
  }

  private async confirmReady(): Promise<void> {
    const { spec, bus } = this.o;
    const sched = this.procs.get('scheduler');
    const runner = this.runners.get(spec.schedulerHost.name);
    if (!sched || !runner) throw await this.fatal('scheduler did not start');
    const fwd = dashboardForward(spec);
    this.client = new SchedulerClient(() => runner.forwardOut(fwd.host, fwd.port), { timeoutMs: 5_000 });
    const workerNames = () =>
      new Set([...this.procs.values()].filter((t) => t.desired.role === 'worker' && !t.exit).map((t) => t.desired.name));
    const schedulerGone = sched.proc.exited.then((e) => describeExit(e, sched.tail.toArray(), spec.schedulerHost.remotePython));
    const r = await waitForScheduler({ client: this.client, expected: workerNames, schedulerGone, timeoutMs: this.o.readyTimeoutMs });
    if (r.kind === 'scheduler-failed') throw await this.fatal(`scheduler on ${spec.schedulerHost.name} failed: ${r.reason}`, sched.tail.toArray());
    this.workers = r.workers;
    bus.emit({ kind: 'host-state', host: spec.schedulerHost.name, state: 'running' });
    this.reportWorkerHosts(r.kind === 'partial' ? new Set(r.missing) : new Set());
  }

  private reportWorkerHosts(missing: Set<string>): void {
    for (const h of this.o.spec.workerHosts) {
      if (this.failedHosts.has(h.name)) continue;
      const mine = [...this.procs.values()].filter((t) => t.desired.host === h.name && t.desired.role === 'worker');
      const registered = mine.filter((t) => this.workers.some((w) => w.name === t.desired.name));
      if (registered.length > 0 && registered.length === mine.length) {
        this.o.bus.emit({ kind: 'host-state', host: h.name, state: 'running' });
        continue;
      }
      const bad = mine.find((t) => !this.workers.some((w) => w.name === t.desired.name));
      const reason = !bad
        ? ''
        : bad.exit
          ? describeExit(bad.exit, bad.tail.toArray(), h.remotePython)
          : missing.has(bad.desired.name)
            ? 'did not register with the scheduler in time'
            : 'not registered';
      this.failHost(h.name, bad ? `${bad.desired.name}: ${reason}` : 'no worker started', bad?.tail.toArray().slice(-8));
    }
  }

  failHost(host: string, reason: string, detail?: string[]): void {
    this.failedHosts.set(host, reason);
    this.o.bus.emit({ kind: 'host-state', host, state: 'failed', reason, detail });
  }

  private async fatal(message: string, detail: string[] = []): Promise<ExpectedError> {
    await this.teardown({ reason: 'start-up failed', force: false });
    const tail = detail.length ? `\n  last output:\n${detail.slice(-10).map((l) => `    ${l}`).join('\n')}` : '';
    return new ExpectedError(message + tail, { exitCode: 1 });
  }

  private stopping?: Promise<TeardownResult>;

  /** Idempotent: a second call gets the first call's result. */
  teardown(opts: Omit<TeardownOptions, 'session' | 'bus' | 'clusterId'>): Promise<TeardownResult> {
    this.stopping ??= teardown({ ...opts, session: this, bus: this.o.bus, clusterId: this.o.clusterId });
    return this.stopping;
  }

  /** A second Ctrl-C: no more grace for anything still running. */
  force(): void {
    for (const t of this.procs.values()) {
      if (t.exit) continue;
      t.stopping = true;
      void t.proc.stop(0).catch(() => undefined);
    }
  }

  /** Resolves when the scheduler process ends for a reason other than our teardown. */
  schedulerExit(): Promise<ExitInfo> {
    const t = this.procs.get('scheduler');
    if (!t) return new Promise(() => {});
    return t.proc.exited.then((e) => (t.stopping ? new Promise<ExitInfo>(() => {}) : e));
  }
}

function uniqueHosts(spec: ClusterSpec): HostSpec[] {
  const seen = new Map<string, HostSpec>([[spec.schedulerHost.name, spec.schedulerHost]]);
  for (const h of spec.workerHosts) if (!seen.has(h.name)) seen.set(h.name, h);
  return [...seen.values()];
}

export function errorText(err: unknown): string {
  if (err instanceof ExpectedError) return err.hint ? `${err.message} (${err.hint})` : err.message;
  return err instanceof Error ? err.message : String(err);
}
