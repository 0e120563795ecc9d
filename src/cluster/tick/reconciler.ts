// The reconcile loop, in the spirit of Dask's SpecCluster._correct_state and of
// controller-runtime: each tick re-observes (hosts due for a reconnect, the scheduler's
// worker list, our processes), diffs plan(desired, observed) and applies the actions.
// It plans only when something it plans from changed since a plan that had nothing to
// do (ClusterState.version), a wait came due, or every RESYNC_TICKS ticks.
// One tick at a time; a request during a tick schedules one follow-up; a failed tick is
// reported and the loop goes on. Once `signal` is aborted (teardown) nothing starts.
// Everything it touches is a port (hosts, scheduler, clock), so tests step it by hand.
import type { HostSpec } from '../../config/spec.js';
import { ExpectedError } from '../../errors.js';
import type { ClusterEvent } from '../../events/types.js';
import { every } from '../clock.js';
import type { ClusterState } from '../cluster-state.js';
import { HostLinks } from './host-links.js';
import { CappedApply } from './capped-apply.js';
import type { DesiredProcess } from '../plan-actions.js';
import { planState } from './plan-state.js';
import type { Clock, HostRunner, ProcessSpec, SchedulerPort } from '../ports.js';
import { ProcessLifecycle } from './process-lifecycle.js';
import { heldBack, retryHeld, type RetireStop } from '../retire-hold.js';
import { addWorkers, dropWorkers, scaleTo, type ScaleResult } from '../placement/scaling.js';

export interface ReconcilerDeps {
  state: ClusterState;
  clock: Clock;
  emit(e: ClusterEvent): void;
  /** Opens a runner on a host (SSH or the local shell). */
  connect(host: HostSpec): Promise<HostRunner>;
  /** argv and env of a desired process. */
  specFor(d: DesiredProcess): ProcessSpec | undefined;
  adoptRefusal?(line: string): string | undefined;
  /** The scheduler's API, once it is known to answer. */
  scheduler(): SchedulerPort | undefined;
  /** The cluster's life: aborted when it is torn down. */
  signal: AbortSignal;
}

/** Added to every wake-up so the due time has surely come when the tick runs. */
const WAKE_SLACK_MS = 10;

/**
 * Every this many ticks the plan runs whatever the versions say (a minute at the
 * controller's 2 s tick): level-triggered still, should a change ever miss its bump.
 */
export const RESYNC_TICKS = 30;

export { TICK_RETIRES, TICK_STARTS } from './capped-apply.js';

/** What the ticks did: plans made, ticks that found nothing changed (tests and the bench read it). */
export interface TickCounts {
  ticks: number;
  plans: number;
  skipped: number;
  /** Ticks that left starts or retirements to a follow-up (over TICK_STARTS / TICK_RETIRES). */
  capped: number;
}

/** When the last plan that had nothing to do was made, and until when that holds. */
interface Quiet {
  version: number;
  desired: readonly DesiredProcess[];
  started: boolean;
  /** The first back-off or held worker's retry that a later tick must act on. */
  until: number;
  /** Ticks since a plan last ran. */
  skips: number;
}

export class Reconciler {
  readonly links: HostLinks;
  readonly lifecycle: ProcessLifecycle;
  private ticking?: Promise<void>;
  private again = false;
  private started = false;
  private quiet?: Quiet;
  /** The next reconcile continues a capped one: it need not read the scheduler's list again. */
  private followUp = false;
  private readonly capping: CappedApply;
  readonly counts: TickCounts = { ticks: 0, plans: 0, skipped: 0, capped: 0 };

  constructor(private readonly d: ReconcilerDeps) {
    const { state, clock, emit } = d;
    const wakeAt = (at: number) => this.wakeAt(at);
    this.links = new HostLinks({ state, clock, emit, connect: d.connect, wakeAt });
    this.lifecycle = new ProcessLifecycle({
      state,
      clock,
      emit,
      specFor: d.specFor,
      scheduler: d.scheduler,
      wakeAt,
      signal: d.signal,
      adoptRefusal: d.adoptRefusal,
    });
    this.capping = new CappedApply({
      state,
      clock,
      lifecycle: this.lifecycle,
      started: () => this.started,
      followUp: () => {
        this.counts.capped++;
        clock.after(0, () => {
          this.followUp = true;
          void this.tick();
        });
      },
      failed: (err) => this.failed(err),
    });
  }

  /** One reconcile at a time; a request during a tick schedules one follow-up. */
  tick(): Promise<void> {
    if (this.d.signal.aborted) {
      this.capping.caughtUp();
      return Promise.resolve();
    }
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
          this.failed(err);
        }
      } while (this.again && !this.d.signal.aborted);
      this.ticking = undefined;
      if (!this.capping.pending || this.d.signal.aborted) this.capping.caughtUp();
    })();
    return this.ticking;
  }

  /** Resolves once no tick runs (a follow-up the clock started, for the bench). */
  idle(): Promise<void> {
    return this.ticking ?? Promise.resolve();
  }

  private async reconcileOnce(): Promise<void> {
    const { state, clock } = this.d;
    const now = clock.now();
    // A host that failed during start-up is reported with the cluster-up, and retried
    // only after it: start-up's ticks (one per host as it connects) must not wait on it.
    if (this.started) await Promise.all(state.health.dueForReconnect(now).map((h) => this.links.connect(h)));
    // A follow-up goes on with the plan of the tick before: the scheduler's whole list
    // (40,000 workers at 10,000 hosts) is read again by the next periodic tick.
    const followUp = this.followUp;
    this.followUp = false;
    if (!followUp) await this.observeScheduler();
    this.counts.ticks++;
    const desired = state.desired();
    // It applies what the capped plan left while the desired list is the one planned
    // from: a plan per follow-up made a wave of 30,000 retirements plan 30,000 stops
    // a hundred times over.
    const rest = this.capping.take(desired, followUp);
    if (rest) return rest();
    if (this.unchanged(now, desired)) {
      this.counts.skipped++;
      return;
    }
    this.counts.plans++;
    const held = heldBack(state, now);
    let until = Infinity;
    let launching = false;
    const actions = planState(state, desired).filter((a) => {
      // The scheduler is started once; after start-up its death ends the cluster. A
      // worker the scheduler would not retire waits for its retry (retire-hold.ts).
      if (a.kind === 'stop') {
        if (held.has(a.name)) until = Math.min(until, state.held.get(a.name)?.retryAt ?? now);
        return !held.has(a.name);
      }
      if (a.process.role !== 'worker' && this.started) return false;
      // Started by a capped tick and not answered yet: not started twice.
      if (this.lifecycle.starting(a.process.name)) {
        launching = true;
        return false;
      }
      const at = state.supervisor.canStartAt(a.process.name);
      if (at !== null && at > now) until = Math.min(until, at);
      return at !== null && now >= at;
    });
    // Nothing to do: later ticks skip the plan until the state changes or a wait ends. A
    // tick that acted plans again next time (a start that failed is tried again), as
    // does one that saw starts under way (one may fail without changing the state).
    this.quiet =
      actions.length || launching
        ? undefined
        : { version: state.version, desired, started: this.started, until, skips: 0 };
    await this.capping.apply(actions, desired);
  }

  private failed(err: unknown): void {
    this.d.emit({ kind: 'notice', level: 'warning', message: `reconcile step failed: ${String(err)}` });
  }

  /** Nothing a plan reads changed since the last plan, which had nothing to do. */
  private unchanged(now: number, desired: readonly DesiredProcess[]): boolean {
    const q = this.quiet;
    if (!q || q.version !== this.d.state.version || q.desired !== desired) return false;
    if (q.started !== this.started || now >= q.until) return false;
    return ++q.skips < RESYNC_TICKS;
  }

  private async observeScheduler(): Promise<void> {
    const scheduler = this.d.scheduler();
    if (!scheduler) return;
    try {
      const listed = await scheduler.workers();
      // The same list as last time (the usual answer): kept, so the state's version stays.
      const known = this.d.state.registered;
      if (listed.length === known.size && listed.every((w) => known.get(w.name) === w.address)) return;
      this.d.state.registered = new Map(listed.map((w) => [w.name, w.address]));
    } catch {
      // Keep the last list: one slow answer is not a reason to think workers left.
    }
  }

  /** Start-up is over: from now on the scheduler's death ends the cluster, it is not restarted. */
  startupDone(): void {
    this.started = true;
  }

  /** Ticks every `ms` on its own until the cluster's life ends. */
  every(ms: number): void {
    every(this.d.clock, ms, this.d.signal, () => void this.tick());
  }

  /** A tick once `at` has come (a restart's or a reconnect's back-off). */
  wakeAt(at: number): void {
    if (this.d.signal.aborted) return;
    this.d.clock.after(Math.max(0, at - this.d.clock.now()) + WAKE_SLACK_MS, () => void this.tick());
  }

  /**
   * A worker count (scale, adaptive up); see scaleTo for `retryCrashed`. `retryHeld`:
   * workers an earlier retirement left running (held) are retired again now. `force`:
   * those and the workers it retires are stopped even if their results cannot move.
   */
  async scale(
    n: number,
    opts: { retryCrashed?: boolean; retryHeld?: boolean; force?: boolean } = {},
  ): Promise<ScaleResult> {
    const before = this.d.state.desiredWorkers.map((w) => w.name);
    if (opts.retryHeld) retryHeld(this.d.state, [...this.d.state.held.keys()], opts.force === true);
    const r = scaleTo(this.d.state, n, opts);
    const left = new Set(this.d.state.desiredWorkers.map((w) => w.name));
    if (opts.force)
      retryHeld(
        this.d.state,
        before.filter((w) => !left.has(w)),
        true,
      );
    await this.tick();
    return r;
  }

  /** New workers on these hosts (adaptive, placed by resource). */
  async add(adds: readonly { host: string; count: number }[]): Promise<void> {
    addWorkers(this.d.state, adds);
    await this.tick();
  }

  /** Retire these workers by name (adaptive scale-down picks which). */
  async retire(names: readonly string[]): Promise<void> {
    dropWorkers(this.d.state, names);
    await this.tick();
  }

  /**
   * Stop one worker (retired through the scheduler first); the next tick starts it again.
   * One the scheduler would not retire keeps running as it is (`held`), unless `force`.
   */
  async restartWorker(name: string, opts: { force?: boolean } = {}): Promise<RetireStop> {
    if (!this.d.state.desiredWorkers.some((w) => w.name === name))
      throw new ExpectedError(`restart: no worker named "${name}" in this cluster`);
    const r = await this.lifecycle.retireAndStop(name, opts);
    // Still desired: nothing to retry, it simply runs on.
    if (r.kind === 'held') this.d.state.held.delete(name);
    this.d.state.supervisor.reset(name);
    await this.tick();
    return r;
  }

  /**
   * How the retirements of these workers ended (those under way are waited for, and
   * those a capped tick left to its follow-ups are waited for to begin).
   */
  outcomes(names: readonly string[]): Promise<Map<string, RetireStop>> {
    return this.capping.outcomes(names);
  }
}
