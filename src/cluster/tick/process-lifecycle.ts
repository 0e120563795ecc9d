// The life of each process we run: started (or adopted from a dead controller) on its
// host's runner, followed (output tail, PID, exit), restarted with back-off after an
// unexpected exit, and retired through the scheduler before it is stopped.
import type { ClusterEvent } from '../../events/types.js';
import { errorText } from '../../errors.js';
import { within } from '../clock.js';
import { NO_LINES, TAIL_LINES, type ClusterState, type TrackedProcess } from '../cluster-state.js';

/** A Python traceback's last line: the exception, at column 0 ("OSError: …", "distributed.comm.core.CommClosedError: …"). */
const EXCEPTION_LINE = /^[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt)\b[^ ]*: /;
import type { DesiredProcess } from '../plan-actions.js';
import type { Clock, ExitInfo, LineStream, ProcessSpec, RunningProcess, SchedulerPort } from '../ports.js';
import { HELD_RETRY_MS, resultsText, type RetireStop } from '../retire-hold.js';

export interface LifecycleDeps {
  state: ClusterState;
  clock: Clock;
  emit(e: ClusterEvent): void;
  /** argv and env of a desired process (built in app/ from dask/). */
  specFor(d: DesiredProcess): ProcessSpec | undefined;
  scheduler(): SchedulerPort | undefined;
  /** A reconcile is wanted at this time (a restart's back-off ends). */
  wakeAt(at: number): void;
  /** The cluster's life: a retirement stops waiting for the scheduler when it ends, and nothing starts after. */
  signal: AbortSignal;
  /** Why an adopted process's stderr line says its log dir was refused (a planted dir), if it does. */
  adoptRefusal?(line: string): string | undefined;
}

export const STOP_GRACE_MS = 10_000;
// Scale-down waits for the scheduler to move the worker's data off, however long that
// takes within reason (teardown, which the user asked for, waits much less).
export const RETIRE_TIMEOUT_MS = 600_000;

export class ProcessLifecycle {
  /** Retirements under way, by worker name. */
  private readonly retiring = new Map<string, Promise<RetireStop>>();
  /** Starts asked of a runner and not yet answered, by name. */
  private readonly launching = new Set<string>();
  /** The starts under way (settled(): teardown waits for them before it stops anything). */
  private readonly inFlight = new Set<Promise<unknown>>();
  constructor(private readonly d: LifecycleDeps) {}

  /** `name`'s start is under way: its runner has not answered yet. */
  starting(name: string): boolean {
    return this.launching.has(name);
  }

  /** Settles once every start under way has been answered (and what it started tracked). */
  async settled(): Promise<void> {
    while (this.inFlight.size) await Promise.allSettled([...this.inFlight]);
  }

  async start(p: DesiredProcess): Promise<void> {
    // Once the teardown has begun nothing starts: a tick that was waiting (on a reconnect,
    // on the scheduler) when it began would start again what it had just stopped.
    if (this.d.signal.aborted) return;
    const runner = this.d.state.runners.get(p.host);
    const spec = this.d.specFor(p);
    if (!runner || !spec) return;
    let proc: RunningProcess;
    this.launching.add(p.name);
    const launch = runner.start(spec);
    this.inFlight.add(launch);
    try {
      proc = await launch;
    } catch (err) {
      this.d.emit({
        kind: 'notice',
        level: 'warning',
        message: `${p.host}: could not start ${p.name}: ${errorText(err)}`,
      });
      return;
    } finally {
      this.launching.delete(p.name);
      this.inFlight.delete(launch);
    }
    this.track(p, proc);
  }

  /** Tracks `pid`, left running by a previous controller, as if we had started it. */
  async adopt(p: DesiredProcess, pid: number): Promise<boolean> {
    const runner = this.d.state.runners.get(p.host);
    const spec = this.d.specFor(p);
    if (!runner || !spec) return false;
    try {
      // Known already: status shows it before the keeper's PID line comes back.
      const t = this.track(p, await runner.adopt(spec, pid), true);
      t.pid = pid;
      t.proc.onLine((stream, line) => this.refused(p, stream === 'stderr' ? this.d.adoptRefusal?.(line) : undefined));
      return true;
    } catch (err) {
      this.d.emit({
        kind: 'notice',
        level: 'warning',
        message: `${p.host}: could not adopt ${p.name} (pid ${pid}): ${errorText(err)}`,
      });
      return false;
    }
  }

  /** A planted orphan-log directory: said in status (the host's lastError) and as a notice. */
  private refused(p: DesiredProcess, why: string | undefined): void {
    if (why === undefined) return;
    this.d.state.health.markDegraded(p.host, `${p.name}: ${why}`);
    this.d.emit({ kind: 'notice', level: 'warning', message: `${p.host}: ${p.name}: ${why}` });
  }

  private track(p: DesiredProcess, proc: RunningProcess, adopted = false): TrackedProcess {
    const { state, clock } = this.d;
    // Every field set here, in this order: one hidden class for all, nothing added later.
    const t: TrackedProcess = {
      desired: p,
      proc,
      tail: NO_LINES,
      firstError: undefined,
      stopping: false,
      pid: undefined,
      exit: undefined,
    };
    state.processes.set(p.name, t);
    state.supervisor.recordStart(p.name, clock.now());
    this.follow(t, adopted);
    return t;
  }

  /**
   * The listeners a tracked process keeps for its life, made here so that they share one
   * small context (the process and this), not track()'s: ~100 bytes a worker less.
   */
  private follow(t: TrackedProcess, adopted: boolean): void {
    const { proc } = t;
    proc.onLine((stream, line) => this.line(t, stream, line));
    proc.onDropped?.((message) => this.d.emit({ kind: 'notice', level: 'warning', message }));
    proc.pid.then((pid) => this.started(t, pid, adopted), ignore);
    void proc.exited.then((e) => this.exited(t, e));
  }

  private line(t: TrackedProcess, stream: LineStream, line: string): void {
    keepLine(t, line);
    if (t.firstError === undefined && EXCEPTION_LINE.test(line)) t.firstError = line;
    this.d.emit({ kind: 'process-line', host: t.desired.host, name: t.desired.name, stream, line });
  }

  private started(t: TrackedProcess, pid: number, adopted: boolean): void {
    t.pid = pid;
    const { host, name } = t.desired;
    this.d.emit({ kind: 'process-started', host, name, pid, ...(adopted ? { adopted: true as const } : {}) });
  }

  private exited(t: TrackedProcess, e: ExitInfo): void {
    const { state, emit, clock } = this.d;
    t.exit = e;
    state.changed();
    const { name, host } = t.desired;
    emit({ kind: 'process-exit', host, name, code: e.code, signal: e.signal, expected: t.stopping });
    if (t.desired.role !== 'worker') return;
    const decision = state.supervisor.recordExit(name, clock.now(), t.stopping);
    if (t.stopping) {
      if (state.processes.get(name) === t) state.processes.delete(name);
      return;
    }
    switch (decision.kind) {
      case 'restart':
        emit({
          kind: 'notice',
          level: 'warning',
          message: `${name} on ${host} exited; restart ${decision.attempt} in ${Math.round((decision.at - clock.now()) / 1000)}s`,
        });
        this.d.wakeAt(decision.at);
        break;
      case 'crash-looping':
        state.health.markDegraded(host, `${name} is crash-looping`);
        emit({
          kind: 'notice',
          level: 'error',
          message: `${name} on ${host} failed ${decision.failures} times in ${decision.windowMs / 1000}s: not restarting it (scale again to retry)`,
        });
        break;
      case 'none':
        break;
    }
  }

  /**
   * Retire through the scheduler first (its data moves), then stop the process. The
   * scheduler keeps the worker until that stop ends it (`keep`): removed at once, the
   * worker would close itself on its next heartbeat, racing the SIGTERM. A worker the
   * scheduler would not retire (results with nowhere to go) keeps running, held
   * (retire-hold.ts), unless the user forced it (`force`, or `state.forced`).
   * Called again while it runs, it answers with the same outcome.
   */
  retireAndStop(name: string, opts: { force?: boolean } = {}): Promise<RetireStop> {
    const t = this.d.state.processes.get(name);
    if (!t || t.exit || t.stopping) return this.retiring.get(name) ?? Promise.resolve({ kind: 'stopped' });
    t.stopping = true;
    this.d.state.changed();
    if (opts.force) this.d.state.forced.add(name);
    const p = this.retireThenStop(t);
    this.retiring.set(name, p);
    void p.finally(() => this.retiring.get(name) === p && this.retiring.delete(name));
    return p;
  }

  /** The outcome of each of these retirements under way (none: it ended or never began). */
  async outcomes(names: readonly string[]): Promise<Map<string, RetireStop>> {
    const out = new Map<string, RetireStop>();
    await Promise.all(
      names.map(async (n) => {
        const p = this.retiring.get(n);
        if (p) out.set(n, await p);
      }),
    );
    return out;
  }

  private async retireThenStop(t: TrackedProcess): Promise<RetireStop> {
    const { state, clock } = this.d;
    const { name, host } = t.desired;
    const kept = await this.retire(name);
    if (kept && !state.forced.has(name) && !this.d.signal.aborted) {
      t.stopping = false;
      state.changed();
      const retryAt = clock.now() + HELD_RETRY_MS;
      state.held.set(name, { ...(kept.results !== undefined ? { results: kept.results } : {}), retryAt });
      this.d.wakeAt(retryAt);
      this.d.emit({
        kind: 'notice',
        level: 'warning',
        message: `${name} on ${host} keeps running: the scheduler could not move ${resultsText(kept.results)} only it holds (no other running worker to take them); retried in ${HELD_RETRY_MS / 1000}s, --force stops it and loses them`,
      });
      return { kind: 'held', ...(kept.results !== undefined ? { results: kept.results } : {}) };
    }
    state.held.delete(name);
    state.forced.delete(name);
    if (kept)
      this.d.emit({
        kind: 'notice',
        level: 'warning',
        message: `${name} on ${host}: stopped as forced; ${resultsText(kept.results)} only it held ${kept.results === 1 ? 'is' : 'are'} lost`,
      });
    await t.proc.stop(STOP_GRACE_MS).catch(() => undefined);
    return kept
      ? { kind: 'dropped', ...(kept.results !== undefined ? { results: kept.results } : {}) }
      : { kind: 'stopped' };
  }

  /** Retires `name` through the scheduler; what the scheduler kept of it, if it did. */
  private async retire(name: string): Promise<{ results?: number } | undefined> {
    const address = this.d.state.registered.get(name);
    const scheduler = this.d.scheduler();
    if (!address || !scheduler) return undefined;
    // An unreachable scheduler or one slower than the bound: stopped as before (a
    // scheduler that does not answer cannot say the results would be lost).
    const retired = scheduler.retireWorkers([address], { keep: true }).catch(() => undefined);
    const outcome = await within(this.d.clock, RETIRE_TIMEOUT_MS, this.d.signal, retired);
    return outcome?.kept.find((k) => k.address === address);
  }
}

const ignore = (): void => {};

/** Keeps `line` in the process's tail of TAIL_LINES, allocated at its first line. */
export function keepLine(t: TrackedProcess, line: string): void {
  if (t.tail === NO_LINES) {
    t.tail = [line];
    return;
  }
  const tail = t.tail as string[];
  tail.push(line);
  if (tail.length > TAIL_LINES) tail.shift();
}
