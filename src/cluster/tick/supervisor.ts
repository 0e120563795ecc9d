// Restart back-off and crash-loop detection for remote processes. Pure: no timers; the
// caller records what it observed with the time it observed it, and asks when (and
// whether) a process may be started again.

export interface RestartPolicy {
  /** Delay before the first restart after a failure. */
  baseMs: number;
  factor: number;
  maxMs: number;
  /** This many unexpected exits within windowMs stop automatic restarts until reset(). */
  crashLoopCount: number;
  windowMs: number;
  /** A run at least this long before an unexpected exit restarts the back-off at baseMs. */
  stableMs: number;
}

export const DEFAULT_RESTART_POLICY: Readonly<RestartPolicy> = Object.freeze({
  baseMs: 1000,
  factor: 2,
  maxMs: 60_000,
  crashLoopCount: 5,
  windowMs: 300_000,
  stableMs: 60_000,
});

export type RestartDecision =
  | { kind: 'restart'; at: number; attempt: number }
  | { kind: 'crash-looping'; failures: number; windowMs: number }
  | { kind: 'none' };

export type ProcessRunState = 'running' | 'restarting' | 'crash-looping' | 'stopped';

export interface ProcessStatus {
  state: ProcessRunState;
  /** Starts recorded after an unexpected exit; kept across reset(). */
  restarts: number;
  /** Unexpected exits since the back-off last started again (0: not failing). */
  consecutiveFailures: number;
  lastExitAt?: number;
  nextStartAt?: number;
}

/** Every field is set when an entry is made (one hidden class, nothing added later): one a worker. */
interface Entry {
  state: ProcessRunState;
  restarts: number;
  startedAt: number | undefined;
  lastExitAt: number | undefined;
  nextStartAt: number | undefined;
  /** k: consecutive failures counted for the back-off. */
  consecutive: number;
  /** Times of unexpected exits still inside the crash-loop window; NO_FAILURES until the first. */
  failures: readonly number[];
}

/** The failures of every entry that has had none: most workers never fail. */
const NO_FAILURES: readonly number[] = Object.freeze([]);

/** Back-off delay for the k-th consecutive failure (k ≥ 1). */
export function backoffDelay(policy: Pick<RestartPolicy, 'baseMs' | 'factor' | 'maxMs'>, k: number): number {
  return Math.min(policy.baseMs * policy.factor ** Math.max(0, k - 1), policy.maxMs);
}

export class RestartSupervisor {
  private readonly entries = new Map<string, Entry>();
  private changes = 0;

  /** Bumped by every record, reset and forget: what mayStart() answers may have changed. */
  get version(): number {
    return this.changes;
  }

  constructor(readonly policy: Readonly<RestartPolicy> = DEFAULT_RESTART_POLICY) {}

  /**
   * The process was seen started. Recording is observation, so it is accepted in any
   * state (a crash-looping process started by hand is running); gating is canStartAt().
   */
  recordStart(name: string, now: number): void {
    this.changes++;
    const e = this.entry(name);
    if (e.state === 'restarting' || e.state === 'crash-looping') e.restarts++;
    e.state = 'running';
    e.startedAt = now;
    e.nextStartAt = undefined;
  }

  /**
   * The process exited. `expected`: we stopped it (scale down, teardown), so no restart.
   * An unexpected exit counts as a failure; a run of at least stableMs resets the
   * back-off to baseMs but not the crash-loop window, so a process dying every few
   * minutes still ends up crash-looping.
   */
  recordExit(name: string, now: number, expected: boolean): RestartDecision {
    this.changes++;
    const e = this.entry(name);
    const startedAt = e.state === 'running' ? e.startedAt : undefined;
    e.lastExitAt = now;
    e.startedAt = undefined;
    e.nextStartAt = undefined;
    if (expected) {
      e.state = 'stopped';
      return { kind: 'none' };
    }
    const p = this.policy;
    const stable = startedAt !== undefined && now - startedAt >= p.stableMs;
    e.consecutive = stable ? 1 : e.consecutive + 1;
    e.failures = [...e.failures.filter((t) => now - t < p.windowMs), now];
    if (e.failures.length >= p.crashLoopCount) {
      e.state = 'crash-looping';
      return { kind: 'crash-looping', failures: e.failures.length, windowMs: p.windowMs };
    }
    e.state = 'restarting';
    e.nextStartAt = now + backoffDelay(p, e.consecutive);
    return { kind: 'restart', at: e.nextStartAt, attempt: e.consecutive };
  }

  /** Earliest time a start is allowed; 0 when there is no wait; null while crash-looping. */
  canStartAt(name: string): number | null {
    const e = this.entries.get(name);
    if (!e) return 0;
    if (e.state === 'crash-looping') return null;
    return e.state === 'restarting' ? (e.nextStartAt ?? 0) : 0;
  }

  mayStart(name: string, now: number): boolean {
    const at = this.canStartAt(name);
    return at !== null && now >= at;
  }

  /** Names waiting for a restart whose time has come, in the order they were first seen. */
  dueForRestart(now: number): string[] {
    return [...this.entries].filter(([, e]) => e.state === 'restarting' && (e.nextStartAt ?? 0) <= now).map(([n]) => n);
  }

  status(name: string): ProcessStatus {
    const e = this.entries.get(name);
    if (!e) return { state: 'stopped', restarts: 0, consecutiveFailures: 0 };
    const s: ProcessStatus = { state: e.state, restarts: e.restarts, consecutiveFailures: e.consecutive };
    if (e.lastExitAt !== undefined) s.lastExitAt = e.lastExitAt;
    if (e.nextStartAt !== undefined) s.nextStartAt = e.nextStartAt;
    return s;
  }

  /** Forget failures and back-off (after `scale` or an explicit restart); restarts is kept. */
  reset(name: string): void {
    const e = this.entries.get(name);
    if (!e) return;
    this.changes++;
    e.consecutive = 0;
    e.failures = NO_FAILURES;
    e.nextStartAt = undefined;
    if (e.state !== 'running') e.state = 'stopped';
  }

  /** Drop a process that is no longer desired. */
  forget(name: string): void {
    if (this.entries.delete(name)) this.changes++;
  }

  private entry(name: string): Entry {
    let e = this.entries.get(name);
    if (!e) {
      e = {
        state: 'stopped',
        restarts: 0,
        startedAt: undefined,
        lastExitAt: undefined,
        nextStartAt: undefined,
        consecutive: 0,
        failures: NO_FAILURES,
      };
      this.entries.set(name, e);
    }
    return e;
  }
}
