// The controller of one running cluster, in the spirit of Dask's SpecCluster: a desired
// worker set and a level-triggered reconcile tick that re-observes (processes, the
// scheduler's worker list, host connections) and applies plan(desired, observed).
import type { ClusterSpec, HostSpec } from '../../config/spec.js';
import { HostHealth } from '../../cluster/host-health.js';
import { explainShortfall, placeWorkers, type PlacedWorker } from '../../cluster/placement.js';
import { desiredProcesses, plan, SCHEDULER_NAME, type DesiredProcess, type ObservedProcess } from '../../cluster/plan.js';
import { RestartSupervisor } from '../../cluster/supervisor.js';
import type { SchedulerClient } from '../../dask/scheduler-client.js';
import { ExpectedError } from '../../errors.js';
import type { EventBus } from '../../events/types.js';
import { dashboardForward, dashboardUrl, schedulerAddress } from './addresses.js';
import { startHttpForwards, type HttpForwards } from './http-forwards.js';
import { connectLimiter } from '../remote/fan-out.js';
import { quotePath } from '../../dask/remote-command.js';
import type { AdaptiveLoop } from './adaptive-loop.js';
import { HostLink } from './host-link.js';
import { ProcessTable, type Tracked } from './process-table.js';
import { readopt, type PreviousCluster } from './readopt.js';
import { confirmReady } from './start-up.js';
import type { ShellPort } from '../remote/shell-port.js';
import { teardown, type TeardownOptions, type TeardownResult } from './teardown.js';

export interface SessionOptions {
  spec: ClusterSpec;
  clusterId: string;
  bus: EventBus;
  fanout: number;
  requireAll: boolean;
  readyTimeoutMs: number;
  openShell(host: HostSpec): Promise<ShellPort>;
  now?: () => number;
  /** Start with this many workers instead of the host file's nworkers (adaptive start). */
  initialWorkers?: number;
  /** How often the reconcile loop runs on its own after start-up. */
  tickMs?: number;
  /** Seconds our processes wait to be adopted after this controller dies (0: none). */
  orphanGraceS?: number;
  /** A dead controller's record of this cluster: adopt what of it still runs. */
  previous?: PreviousCluster;
  /** Where the owner-only socket to the scheduler's HTTP server goes (none: not opened). */
  apiSocket?: string;
}

export type { Tracked };

export class ClusterSession {
  readonly spec: ClusterSpec;
  readonly address: string;
  dashboard: string;
  readonly startedAt: number;
  readonly health = new HostHealth();
  readonly supervisor = new RestartSupervisor();
  readonly links: HostLink;
  readonly table: ProcessTable;
  readonly failedHosts = new Map<string, string>();
  desiredWorkers: PlacedWorker[];
  client?: SchedulerClient;
  /** The scheduler's own worker list, refreshed every tick: name → address. */
  registered = new Map<string, string>();
  private started = false;
  private ticking?: Promise<void>;
  private again = false;
  private timer?: NodeJS.Timeout;
  private stopping?: Promise<TeardownResult>;
  readonly now: () => number;

  constructor(readonly o: SessionOptions) {
    this.spec = o.spec;
    this.now = o.now ?? Date.now;
    this.startedAt = this.now();
    this.address = schedulerAddress(o.spec);
    this.dashboard = dashboardUrl(o.spec);
    this.desiredWorkers = desiredProcesses(o.spec).filter((d) => d.role === 'worker').map(({ name, host }) => ({ name, host }));
    if (o.initialWorkers !== undefined) {
      // Adaptive from the start: begin at its minimum, not at the host file's size.
      const hosts = o.spec.workerHosts.map((h) => ({ name: h.name, maxWorkers: h.maxWorkers, healthy: true }));
      this.desiredWorkers = placeWorkers(o.initialWorkers, hosts, []).workers;
    }
    this.links = new HostLink(this);
    this.table = new ProcessTable(this);
  }

  get bus(): EventBus {
    return this.o.bus;
  }

  hostSpec(name: string): HostSpec | undefined {
    return name === this.spec.schedulerHost.name ? this.spec.schedulerHost : this.spec.workerHosts.find((h) => h.name === name);
  }

  /** Resolves once the scheduler confirms readiness; throws (after cleaning up) if it cannot. */
  async start(): Promise<void> {
    const limit = connectLimiter({ fanout: this.o.fanout });
    const hosts = uniqueHosts(this.spec);
    await Promise.all(hosts.map((h) => limit(() => this.links.connect(h.name))));
    const schedulerFailure = this.failedHosts.get(this.spec.schedulerHost.name);
    if (schedulerFailure !== undefined) throw await this.fatal(`scheduler host ${this.spec.schedulerHost.name} failed: ${schedulerFailure}`);
    const adopted = this.o.previous ? await readopt(this, this.o.previous) : 0;
    await this.tick();
    if (adopted) {
      const started = this.table.all().length - adopted;
      this.bus.emit({ kind: 'notice', level: 'info', message: `re-adopted ${adopted} process(es) from the state file, started ${started}` });
    }
    await confirmReady(this);
    if (this.o.requireAll && this.failedHosts.size) {
      throw await this.fatal(`--require-all: ${this.failedHosts.size} host(s) failed: ${[...this.failedHosts.keys()].join(', ')}`);
    }
    this.started = true;
    await this.forwardDashboard();
    this.bus.emit({
      kind: 'cluster-up',
      schedulerAddress: this.address,
      dashboardUrl: this.dashboard,
      workers: [...this.registered].map(([name, address]) => ({ name, address })),
      failedHosts: [...this.failedHosts.keys()],
    });
    this.timer = setInterval(() => void this.tick(), this.o.tickMs ?? 2_000);
    this.timer.unref();
  }

  private httpForwards?: HttpForwards;

  /** A dashboard on the scheduler host's loopback is forwarded here (see http-forwards.ts). */
  private async forwardDashboard(): Promise<void> {
    const fwd = dashboardForward(this.spec);
    if (this.spec.local || fwd.host !== '127.0.0.1') return;
    const port = Number(new URL(this.dashboard).port) || fwd.port;
    const connect = async () => {
      const runner = this.links.runners.get(this.spec.schedulerHost.name);
      if (!runner) throw new Error('the scheduler host is not connected');
      return runner.forwardOut('127.0.0.1', port);
    };
    this.httpForwards = await startHttpForwards({ connect, port, apiSocket: this.o.apiSocket, say: (e) => this.bus.emit(e) });
    if (this.httpForwards.url) this.dashboard = this.httpForwards.url;
  }

  /** One reconcile at a time; a request during a tick schedules one follow-up. */
  tick(): Promise<void> {
    if (this.stopping) return Promise.resolve();
    if (this.ticking) {
      this.again = true;
      return this.ticking;
    }
    this.ticking = (async () => {
      do {
        this.again = false;
        try {
          await this.reconcileOnce();
        } catch (err) {
          this.bus.emit({ kind: 'notice', level: 'warning', message: `reconcile step failed: ${String(err)}` });
        }
      } while (this.again && !this.stopping);
      this.ticking = undefined;
    })();
    return this.ticking;
  }

  private async reconcileOnce(): Promise<void> {
    const now = this.now();
    await Promise.all(this.health.dueForReconnect(now).map((h) => this.links.connect(h)));
    await this.observeScheduler();
    const desired: DesiredProcess[] = [
      { name: SCHEDULER_NAME, host: this.spec.schedulerHost.name, role: 'scheduler' },
      ...this.desiredWorkers.map((w) => ({ ...w, role: 'worker' as const })),
    ];
    const observed: ObservedProcess[] = this.table.observe(this.registered);
    const actions = plan(desired, observed, this.links.unusable()).filter(
      // The scheduler is started once; after start-up its death ends the cluster.
      (a) => a.kind === 'stop' || ((a.process.role === 'worker' || !this.started) && this.supervisor.mayStart(a.process.name, now)),
    );
    // Retiring can take as long as moving the worker's data: it must not hold up the
    // next tick (restarts, reconnects, growth). retireAndStop marks the process
    // `stopping` at once, so the next plan does not stop it twice.
    for (const a of actions) if (a.kind === 'stop') void this.table.retireAndStop(a.name);
    await Promise.all(actions.flatMap((a) => (a.kind === 'start' ? [this.table.start(a.process)] : [])));
  }

  private async observeScheduler(): Promise<void> {
    if (!this.client) return;
    try {
      this.registered = new Map((await this.client.workers()).map((w) => [w.name, w.address]));
    } catch {
      // Keep the last list: one slow answer is not a reason to think workers left.
    }
  }

  /** `sshcluster scale N`: a new desired worker set, applied by the next tick. */
  /** The adaptive loop, when the cluster is adaptive; scale() turns it off. */
  adaptive?: AdaptiveLoop;

  /** Retire these workers by name (adaptive scale-down picks which). */
  async retire(names: readonly string[]): Promise<void> {
    const gone = new Set(names);
    this.desiredWorkers = this.desiredWorkers.filter((w) => !gone.has(w.name));
    for (const n of names) this.supervisor.reset(n);
    await this.tick();
  }

  /** distributed.__version__ on the scheduler host, asked once. */
  daskVersion(): Promise<string> {
    this.version ??= (async () => {
      const runner = this.links.runners.get(this.spec.schedulerHost.name);
      if (!runner) throw new Error('the scheduler host is not connected');
      const py = quotePath(this.spec.schedulerHost.remotePython);
      const r = await runner.run(`${py} -c 'import distributed; print(distributed.__version__)'`);
      const v = r.stdout.trim();
      if (r.code !== 0 || !v) throw new Error(`could not read the distributed version on ${this.spec.schedulerHost.name}: ${r.stderr.trim()}`);
      return v;
    })();
    this.version.catch(() => (this.version = undefined));
    return this.version;
  }

  private version?: Promise<string>;

  async scale(n: number, opts: { retryCrashed?: boolean } = {}): Promise<{ desired: number; message?: string }> {
    // A user's "scale again to retry": a crash-looping worker gets a fresh start, and its
    // host is no longer held back. Adaptive steps do not do this, or a crash loop would
    // be retried every interval.
    for (const w of opts.retryCrashed ? this.desiredWorkers : []) {
      if (this.supervisor.status(w.name).state !== 'crash-looping') continue;
      this.supervisor.reset(w.name);
      this.health.clearDegraded(w.host);
    }
    const hosts = this.spec.workerHosts.map((h) => ({ name: h.name, maxWorkers: h.maxWorkers, healthy: this.placeable(h.name) }));
    const p = placeWorkers(n, hosts, this.desiredWorkers);
    for (const w of [...p.added, ...p.removed]) this.supervisor.reset(w.name);
    this.desiredWorkers = p.workers;
    await this.tick();
    return { desired: p.workers.length, message: explainShortfall(n, p, hosts) };
  }

  /** Stop one worker (retired through the scheduler first); the next tick starts it again. */
  async restartWorker(name: string): Promise<void> {
    if (!this.desiredWorkers.some((w) => w.name === name)) throw new ExpectedError(`restart: no worker named "${name}" in this cluster`);
    await this.table.retireAndStop(name);
    this.supervisor.reset(name);
    await this.tick();
  }

  /**
   * New workers go to connected hosts whose workers are not failing: a host with a
   * crash-looping worker (degraded) or one waiting out a restart back-off gets none,
   * so growth uses the other hosts.
   */
  placeable(host: string): boolean {
    if (!this.links.usable(host) || this.health.state(host)?.kind === 'degraded') return false;
    const failing = (name: string) => ['restarting', 'crash-looping'].includes(this.supervisor.status(name).state);
    return !this.desiredWorkers.some((w) => w.host === host && failing(w.name));
  }

  failHost(host: string, reason: string, detail?: string[]): void {
    this.failedHosts.set(host, reason);
    this.bus.emit({ kind: 'host-state', host, state: 'failed', reason, detail });
  }

  async fatal(message: string, detail: string[] = []): Promise<ExpectedError> {
    await this.teardown({ reason: 'start-up failed', force: false });
    const tail = detail.length ? `\n  last output:\n${detail.slice(-10).map((l) => `    ${l}`).join('\n')}` : '';
    return new ExpectedError(message + tail, { exitCode: 1 });
  }

  /** Idempotent: a second call gets the first call's result. */
  teardown(opts: Omit<TeardownOptions, 'session' | 'bus' | 'clusterId'>): Promise<TeardownResult> {
    if (this.timer) clearInterval(this.timer);
    this.httpForwards?.close();
    this.stopping ??= teardown({ ...opts, session: this, bus: this.bus, clusterId: this.o.clusterId });
    return this.stopping;
  }

  /** A second Ctrl-C: no more grace for anything still running. */
  force(): void {
    for (const t of this.table.all()) {
      if (t.exit) continue;
      t.stopping = true;
      void t.proc.stop(0).catch(() => undefined);
    }
  }

  /** Resolves when the scheduler process ends for a reason other than our teardown. */
  schedulerExit(): Promise<unknown> {
    const t = this.table.get(SCHEDULER_NAME);
    if (!t) return new Promise(() => {});
    return t.proc.exited.then((e) => (t.stopping ? new Promise(() => {}) : e));
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
