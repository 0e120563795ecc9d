// A plan applied a bounded number of actions a tick: at most TICK_STARTS starts and
// TICK_RETIRES retirements, the rest left for follow-up ticks at once, which go on with
// the plan (each action checked again) while the desired workers are the ones it was
// made from. No tick then holds the controller's one thread for long (docs/scale.md,
// "Bounded ticks"); a tick with fewer to do is applied in that tick, as before.
import type { ClusterState } from '../cluster-state.js';
import type { Action, DesiredProcess } from '../plan-actions.js';
import type { Clock } from '../ports.js';
import type { ProcessLifecycle } from './process-lifecycle.js';
import type { RetireStop } from '../retire-hold.js';

/**
 * At most this many starts, and this many retirements, one tick applies. A worker
 * started costs ~5 µs of CPU, one retired (the scheduler's answer, the stop, the exit and
 * its event) several times that: a tick of a 10,000-host wave took 100 ms and more. A
 * pipelined start-up's ticks start the hosts connected since the last, seldom this many.
 */
export const TICK_STARTS = 250;
export const TICK_RETIRES = 100;

export interface CappedApplyDeps {
  state: ClusterState;
  clock: Clock;
  lifecycle: ProcessLifecycle;
  /** Start-up is over: the scheduler is not started again. */
  started(): boolean;
  /** This tick was capped: a follow-up tick, at once (not on the periodic timer). */
  followUp(): void;
  failed(err: unknown): void;
}

export class CappedApply {
  /** What a capped tick left to its follow-ups: its plan, from `next` on. */
  private backlog?: { desired: readonly DesiredProcess[]; actions: readonly Action[]; next: number };
  /** Resolved once no capped plan is left to follow-ups (outcomes() waits for it). */
  private behind?: { promise: Promise<void>; resolve: () => void };

  constructor(private readonly d: CappedApplyDeps) {}

  /** A capped plan is left to follow-ups. */
  get pending(): boolean {
    return this.backlog !== undefined;
  }

  /**
   * Takes what a capped plan left, when it was made from `desired` (the workers have not
   * changed since): a follow-up applies it without planning again. Any other tick drops it.
   */
  take(desired: readonly DesiredProcess[], followUp: boolean): (() => Promise<void>) | undefined {
    const left = this.backlog;
    this.backlog = undefined;
    if (!followUp || left?.desired !== desired) return undefined;
    return () => this.apply(left.actions, desired, left.next);
  }

  /**
   * Retirements and starts from actions[from], at most TICK_RETIRES and TICK_STARTS of
   * them; the rest to a follow-up. A capped tick's starts are not waited for (the
   * follow-up skips them: lifecycle.starting), so a cluster over the cap starts no later
   * than in one tick.
   */
  async apply(actions: readonly Action[], desired: readonly DesiredProcess[], from = 0): Promise<void> {
    const { lifecycle } = this.d;
    const now = this.d.clock.now();
    const starts: DesiredProcess[] = [];
    let stops = 0;
    let i = from;
    for (; i < actions.length; i++) {
      const a = actions[i]!;
      if (a.kind === 'start' ? starts.length >= TICK_STARTS : stops >= TICK_RETIRES) break;
      if (from > 0 && !this.stillDue(a, now)) continue;
      if (a.kind === 'start') starts.push(a.process);
      else {
        // Retiring can take as long as moving the worker's data: it must not hold up the
        // next tick (restarts, reconnects, growth). retireAndStop marks the process
        // `stopping` at once, so the next plan does not stop it twice.
        stops++;
        void lifecycle.retireAndStop(a.name);
      }
    }
    const started = Promise.all(starts.map((p) => lifecycle.start(p)));
    if (i === actions.length) {
      this.caughtUp(); // every retirement of the plan has begun: outcomes() can catch them
      return void (await started);
    }
    this.backlog = { desired, actions, next: i };
    if (!this.behind) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.behind = { promise, resolve };
    }
    started.catch((err: unknown) => this.d.failed(err));
    this.d.followUp();
  }

  /** An action a capped plan left is still to do (its desired list is the same; the rest may have moved). */
  private stillDue(a: Action, now: number): boolean {
    const { state, lifecycle } = this.d;
    if (a.kind === 'stop') {
      const t = state.processes.get(a.name);
      const held = state.held.get(a.name);
      return t !== undefined && !t.exit && !t.stopping && !(held && held.retryAt > now);
    }
    const { name, host, role } = a.process;
    if (role !== 'worker' && this.d.started()) return false;
    const t = state.processes.get(name);
    const at = state.supervisor.canStartAt(name);
    return (!t || t.exit !== undefined) && state.usable(host) && !lifecycle.starting(name) && at !== null && at <= now;
  }

  /**
   * How the retirements of these workers ended (those under way are waited for, and
   * those a capped tick left to its follow-ups are waited for to begin).
   */
  outcomes(names: readonly string[]): Promise<Map<string, RetireStop>> {
    // Those under way are caught now: one may end while the follow-ups run.
    const now = this.d.lifecycle.outcomes(names);
    const behind = this.behind;
    if (!behind) return now;
    return behind.promise.then(async () => {
      const [before, later] = await Promise.all([now, this.d.lifecycle.outcomes(names)]);
      return new Map([...later, ...before]);
    });
  }

  /** Nothing is left to follow-ups (or never will be: the cluster is ending). */
  caughtUp(): void {
    this.behind?.resolve();
    this.behind = undefined;
  }
}
