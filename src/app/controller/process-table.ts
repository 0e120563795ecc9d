// The processes this controller started or adopted: how they are started (argv, env),
// what is observed of them, supervised restarts after unexpected exits, and retirement.
import type { DesiredProcess, ObservedProcess } from '../../cluster/plan.js';
import type { ExitInfo, ProcessSpec, RunningProcess } from '../../cluster/ports.js';
import { schedulerArgv, schedulerEnv, workerArgv, workerEnv } from '../../dask/argv.js';
import type { ClusterSession } from './cluster-session.js';
import { errorText } from './cluster-session.js';
import { Ring } from '../remote/line-splitter.js';

export interface Tracked {
  desired: DesiredProcess;
  proc: RunningProcess;
  tail: Ring<string>;
  stopping: boolean;
  pid?: number;
  /** Set once the process has ended. */
  exit?: ExitInfo;
}

const STOP_GRACE_MS = 10_000;
// Scale-down waits for the scheduler to move the worker's data off, however long that
// takes within reason (teardown, which the user asked for, waits much less).
const RETIRE_TIMEOUT_MS = 600_000;

export class ProcessTable {
  private readonly procs = new Map<string, Tracked>();

  constructor(private readonly s: ClusterSession) {}

  all(): Tracked[] {
    return [...this.procs.values()];
  }

  get(name: string): Tracked | undefined {
    return this.procs.get(name);
  }

  observe(registered: Map<string, string>): ObservedProcess[] {
    return this.all().map((t) => ({
      name: t.desired.name,
      host: t.desired.host,
      role: t.desired.role,
      state: t.exit ? 'exited' : t.stopping ? 'stopping' : registered.has(t.desired.name) ? 'running' : 'starting',
    }));
  }

  async start(d: DesiredProcess): Promise<void> {
    const runner = this.s.links.runners.get(d.host);
    const spec = this.processSpec(d);
    if (!runner || !spec) return;
    let proc: RunningProcess;
    try {
      proc = await runner.start(spec);
    } catch (err) {
      this.s.bus.emit({ kind: 'notice', level: 'warning', message: `${d.host}: could not start ${d.name}: ${errorText(err)}` });
      return;
    }
    this.track(d, proc);
  }

  /** Tracks `pid`, left running by a previous controller, as if we had started it. */
  async adopt(d: DesiredProcess, pid: number): Promise<boolean> {
    const runner = this.s.links.runners.get(d.host);
    const spec = this.processSpec(d);
    if (!runner || !spec) return false;
    try {
      // Known already: status shows it before the keeper's PID line comes back.
      this.track(d, await runner.adopt(spec, pid)).pid = pid;
      return true;
    } catch (err) {
      this.s.bus.emit({ kind: 'notice', level: 'warning', message: `${d.host}: could not adopt ${d.name} (pid ${pid}): ${errorText(err)}` });
      return false;
    }
  }

  private processSpec(d: DesiredProcess): ProcessSpec | undefined {
    const h = this.s.hostSpec(d.host);
    if (!h) return undefined;
    const { spec } = this.s;
    const argv =
      d.role === 'scheduler'
        ? schedulerArgv(h.remotePython, spec.schedulerOptions)
        : workerArgv(h.remotePython, this.s.address, d.name, h.workerOptions);
    const env = { ...h.env, ...(d.role === 'scheduler' ? schedulerEnv(adaptiveEnv(spec.adaptive?.targetDurationMs)) : workerEnv()) };
    return { name: d.name, host: d.host, role: d.role, argv, env };
  }

  private track(d: DesiredProcess, proc: RunningProcess): Tracked {
    const { bus } = this.s;
    const t: Tracked = { desired: d, proc, tail: new Ring(30), stopping: false };
    this.procs.set(d.name, t);
    this.s.supervisor.recordStart(d.name, this.s.now());
    proc.onLine((stream, line) => {
      t.tail.push(line);
      bus.emit({ kind: 'process-line', host: d.host, name: d.name, stream, line });
    });
    proc.onDropped?.((message) => bus.emit({ kind: 'notice', level: 'warning', message }));
    proc.pid.then(
      (pid) => {
        t.pid = pid;
        bus.emit({ kind: 'process-started', host: d.host, name: d.name, pid });
      },
      () => {},
    );
    void proc.exited.then((e) => this.exited(t, e));
    return t;
  }

  private exited(t: Tracked, e: ExitInfo): void {
    t.exit = e;
    const { name, host } = t.desired;
    this.s.bus.emit({ kind: 'process-exit', host, name, code: e.code, signal: e.signal, expected: t.stopping });
    if (t.desired.role !== 'worker') return;
    const decision = this.s.supervisor.recordExit(name, this.s.now(), t.stopping);
    if (t.stopping) {
      if (this.procs.get(name) === t) this.procs.delete(name);
      return;
    }
    switch (decision.kind) {
      case 'restart':
        this.s.bus.emit({ kind: 'notice', level: 'warning', message: `${name} on ${host} exited; restart ${decision.attempt} in ${Math.round((decision.at - this.s.now()) / 1000)}s` });
        setTimeout(() => void this.s.tick(), Math.max(0, decision.at - this.s.now()) + 10).unref();
        break;
      case 'crash-looping':
        this.s.health.markDegraded(host, `${name} is crash-looping`);
        this.s.bus.emit({ kind: 'notice', level: 'error', message: `${name} on ${host} failed ${decision.failures} times in ${decision.windowMs / 1000}s: not restarting it (scale again to retry)` });
        break;
      case 'none':
        break;
    }
  }

  /** Retire through the scheduler first (its data moves), then stop the process. */
  async retireAndStop(name: string): Promise<void> {
    const t = this.procs.get(name);
    if (!t || t.exit || t.stopping) return;
    t.stopping = true;
    const address = this.s.registered.get(name);
    if (address && this.s.client) {
      await Promise.race([this.s.client.retireWorkers([address]).catch(() => undefined), sleep(RETIRE_TIMEOUT_MS)]);
    }
    await t.proc.stop(STOP_GRACE_MS).catch(() => undefined);
  }
}

/**
 * target_duration is scheduler configuration in Dask (adaptive_target's default comes
 * from distributed.adaptive.target-duration), so it is set when the scheduler starts.
 */
function adaptiveEnv(targetDurationMs: number | undefined): Record<string, string> {
  return targetDurationMs === undefined ? {} : { DASK_DISTRIBUTED__ADAPTIVE__TARGET_DURATION: `${targetDurationMs}ms` };
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms).unref());
}
