// `apply`, `drain`/`undrain` and the rolling restart, on a running cluster: the core's
// pure changes (cluster/changes/desired-change.ts, spec-diff.ts) and roll (cluster/changes/rolling.ts), driven
// with the core's reconciler, links and adaptive loop (cluster.ts). One change at a time.
import { applySpec, drainHosts, restoreHost, undrainHosts, type DrainResult } from './desired-change.js';
import { delay } from '../clock.js';
import type { ClusterState } from '../cluster-state.js';
import type { Clock } from '../ports.js';
import { keptAndDropped, retryHeld, type KeptWorker, type RetireStop } from '../retire-hold.js';
import { rollingRestart, type RollResult } from './rolling.js';
import { diffSpecs, hasChanges, type SpecDiff } from './spec-diff.js';
import type { AdaptiveSpec, ClusterSpec } from '../../config/spec.js';
import { ExpectedError, UsageError } from '../../errors.js';
import type { ClusterEvent } from '../../events/types.js';

/** How a roll's progress notices begin; `restart` prints what follows as it comes. */
export const ROLL_NOTICE = 'rolling restart: ';

export interface ChangeDeps {
  state: ClusterState;
  clock: Clock;
  signal: AbortSignal;
  emit(e: ClusterEvent): void;
  tick(): Promise<void>;
  restartWorker(name: string, opts?: { force?: boolean }): Promise<RetireStop>;
  /** How the retirements of these workers ended (those under way waited for). */
  outcomes(names: readonly string[]): Promise<Map<string, RetireStop>>;
  connect(host: string): Promise<void>;
  /** false: the host was not connected, so nothing there was stopped. */
  leave(host: string): Promise<boolean>;
  /** The adaptive settings in force, undefined at a fixed size. */
  adaptive(): AdaptiveSpec | undefined;
  startAdaptive(spec: AdaptiveSpec): void;
}

export interface RollParams {
  maxUnavailable: number;
  timeoutMs: number;
  /** Restart (or stop) workers even when the scheduler cannot move their results: they are lost. */
  force?: boolean;
}

export interface ApplyReply {
  diff: SpecDiff;
  roll?: RollResult;
  /** Added hosts that could not be connected, with the reason. */
  failedHosts: { host: string; reason: string }[];
  /** Workers it retired that the scheduler kept (results with nowhere to go): still running, their hosts not left. */
  held?: KeptWorker[];
  /** Those stopped anyway (`force`): their results are lost. */
  dropped?: KeptWorker[];
}

/** How long a removed host's workers may take to retire and stop before it is left anyway. */
const LEAVE_TIMEOUT_MS = 60_000;
const POLL_MS = 500;

/**
 * Once the cluster is stopping (its life's signal aborted: a stop, `down`, a failure), a
 * change would be undone by the teardown under way, or outlive it (a host connected
 * after the last was closed): refused, so its reply does not say it was made.
 */
export function refuseWhenStopping(life: AbortSignal, what: string): void {
  if (life.aborted) throw new ExpectedError(`${what}: the cluster is stopping; nothing was changed`);
}

export class ClusterChanges {
  private busy?: string;
  /** Called when what the state file keeps (spec, drained, pending restarts) changed. */
  readonly listeners = new Set<() => void>();

  constructor(private readonly d: ChangeDeps) {}

  async apply(next: ClusterSpec, o: RollParams): Promise<ApplyReply> {
    return this.one('apply', async () => {
      const { state } = this.d;
      const old = state.spec;
      // Against the adaptive settings in force (none while it is off), as plan diffs them:
      // a file with an adaptive: section turns it on with them, as up of that file does.
      const diff = diffSpecs(
        { ...old, adaptive: this.d.adaptive() },
        { ...next, name: old.name },
        state.desiredWorkers,
        next.adaptive !== undefined,
      );
      if (diff.recreate.length) {
        throw new ExpectedError(`apply: a running cluster cannot take this: ${diff.recreate.join('; ')}`, {
          hint: 'sshcluster down, then up with the new file',
        });
      }
      if (!hasChanges(diff)) return { diff, failedHosts: [] };
      const before = state.desiredWorkers.map((w) => w.name);
      applySpec(state, { ...next, name: old.name }, diff);
      const left = new Set(state.desiredWorkers.map((w) => w.name));
      const gone = before.filter((w) => !left.has(w));
      if (o.force) retryHeld(state, gone, true);
      this.say(applyLine(diff, old.schedulerHost.name));
      // The scheduler's host, newly a worker host too, is connected already.
      await Promise.all(diff.hostsAdded.filter((h) => !state.runners.has(h)).map((h) => this.d.connect(h)));
      const failedHosts = diff.hostsAdded.flatMap((host) => {
        const reason = state.failedHosts.get(host);
        return reason === undefined ? [] : [{ host, reason }];
      });
      if (diff.adaptive?.to) this.d.startAdaptive(diff.adaptive.to);
      await this.d.tick();
      const names = diff.restart
        .flatMap((r) => r.workers)
        .filter((n) => state.desiredWorkers.some((w) => w.name === n));
      const roll = names.length ? await this.pendingRoll(names, o) : undefined;
      if (roll?.kind === 'stopped') {
        // The hosts not fully reached go back to the spec their workers still run.
        const back = new Set(
          [roll.failed, ...roll.notReached].map((n) => state.desiredWorkers.find((w) => w.name === n)?.host),
        );
        for (const host of back) if (host) restoreHost(state, old, host);
        // One held back still runs its old process: nothing to put back.
        if (!roll.held) await this.d.restartWorker(roll.failed).catch(() => undefined);
      }
      const kept = keptAndDropped(await this.d.outcomes(gone));
      // The scheduler's host, no longer a worker host, stays: only its workers go. One
      // with a held worker is left once that has retired, however long it takes.
      const holding = new Set(kept.held.map((w) => state.processes.get(w.name)?.desired.host));
      const removed = diff.hostsRemoved.filter((h) => h !== state.spec.schedulerHost.name);
      for (const h of removed.filter((x) => holding.has(x))) void this.leaveWhenEmpty(h, Infinity);
      await Promise.all(removed.filter((h) => !holding.has(h)).map((h) => this.leaveWhenEmpty(h)));
      return {
        diff,
        failedHosts,
        ...(roll ? { roll } : {}),
        ...(kept.held.length ? { held: kept.held } : {}),
        ...(kept.dropped.length ? { dropped: kept.dropped } : {}),
      };
    });
  }

  drain(hosts: readonly string[], undrain: boolean, force = false): Promise<DrainResult> {
    return this.one(undrain ? 'undrain' : 'drain', async () => {
      const { state } = this.d;
      // A name that matches no worker host is a typo (exit 2, as exec's --hosts), said with the names there are.
      const typos = (r: DrainResult): void => {
        if (r.unknown.length !== hosts.length) return;
        const scheduler = r.unknown.includes(state.spec.schedulerHost.name)
          ? ` (${state.spec.schedulerHost.name} runs the scheduler and no workers)`
          : '';
        throw new UsageError(
          `${undrain ? 'undrain' : 'drain'}: no worker host named ${r.unknown.join(', ')} in this cluster${scheduler}`,
          { hint: `its worker hosts: ${state.spec.workerHosts.map((h) => h.name).join(', ')}` },
        );
      };
      if (undrain) {
        const { back, ...r } = undrainHosts(state, hosts);
        typos(r);
        if (back.length) this.say(undrainLine(back, r));
        if (r.replaced.length || r.kept?.length) await this.d.tick();
        return r;
      }
      const r = drainHosts(state, hosts, this.d.adaptive() === undefined);
      typos(r);
      // Workers an earlier drain of these hosts left running (held): tried again now.
      const earlier = [...state.held.keys()].filter((n) => hosts.includes(state.processes.get(n)?.desired.host ?? ''));
      retryHeld(state, [...r.retired, ...earlier], force);
      const asked = hosts.filter((h) => !r.unknown.includes(h) && !r.unchanged.includes(h));
      if (!asked.length && !earlier.length) return r; // drained already
      if (asked.length)
        this.say(
          `drain: ${asked.join(', ')}: retiring ${r.retired.length} worker(s)${r.replaced.length ? `, ${r.replaced.length} started elsewhere` : ''}${r.kept?.length ? `, ${r.kept.length} held worker(s) kept running` : ''}${r.short ? `; ${r.short} to start again at undrain (no room elsewhere)` : ''}`,
        );
      await this.d.tick();
      const outcomes = await this.d.outcomes([...r.retired, ...earlier]);
      // The earlier ones retired now count as this drain's.
      return {
        ...r,
        retired: [...r.retired, ...earlier.filter((n) => outcomes.get(n)?.kind === 'stopped')],
        ...keptAndDropped(outcomes),
      };
    });
  }

  /** `restart --rolling`: these workers (all by default) on the spec in force. */
  restart(names: readonly string[], o: RollParams): Promise<RollResult> {
    return this.one('restart', () => this.roll(names, o));
  }

  /** What an interrupted apply (the dead controller's state file) had yet to restart. */
  resume(names: readonly string[], o: RollParams): Promise<RollResult> {
    return this.one('apply (resumed)', () => this.pendingRoll(names, o));
  }

  /** A roll an apply owes: kept in the state file (pendingRoll) until it ends. */
  private async pendingRoll(names: readonly string[], o: RollParams): Promise<RollResult> {
    for (const n of names) this.d.state.pendingRoll.add(n);
    try {
      return await this.roll(names, o);
    } finally {
      this.d.state.pendingRoll.clear();
      this.changed();
    }
  }

  private async roll(names: readonly string[], o: RollParams): Promise<RollResult> {
    const { state, clock, signal } = this.d;
    const progress = (line: string) => {
      this.say(`${ROLL_NOTICE}${line}`);
      this.changed();
    };
    const restart = (n: string) => this.d.restartWorker(n, { force: o.force === true });
    const r = await rollingRestart({ state, clock, signal, restart, tick: () => this.d.tick(), progress }, names, {
      ...o,
      pollMs: POLL_MS,
    });
    this.changed();
    // Said where status and the dashboard show it, not only to the command that asked.
    if (r.kind === 'stopped') {
      this.d.emit({
        kind: 'notice',
        level: 'error',
        message: `rolling restart stopped at ${r.failed}: ${r.reason}; ${r.restarted.length} worker(s) restarted, ${r.notReached.length + 1} keep their old spec`,
      });
    }
    return r;
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }

  /** A removed host is left once its workers have retired and stopped (or after a bound). */
  private async leaveWhenEmpty(host: string, timeoutMs = LEAVE_TIMEOUT_MS): Promise<void> {
    const deadline = this.d.clock.now() + timeoutMs;
    while (
      this.d.state.alive().some((t) => t.desired.host === host) &&
      this.d.clock.now() < deadline &&
      !this.d.signal.aborted
    ) {
      await delay(this.d.clock, POLL_MS, this.d.signal);
      if (this.d.state.hostSpec(host)) return; // back in the spec meanwhile (a later apply)
    }
    // A host that does not answer: its workers count as gone, but may run on (a detached
    // cluster's outlive a lost connection); it stays a former host, which down checks.
    if (await this.d.leave(host)) this.say(`${host} left the cluster`);
    else
      this.say(
        `${host} removed from the cluster, but it does not answer: what runs there was not stopped (\`sshcluster down\` checks it)`,
      );
  }

  private async one<T>(what: string, fn: () => Promise<T>): Promise<T> {
    refuseWhenStopping(this.d.signal, what);
    if (this.busy) throw new ExpectedError(`${what}: ${this.busy} is still in progress; try again when it is done`);
    this.busy = what;
    try {
      return await fn();
    } finally {
      this.busy = undefined;
    }
  }

  private say(message: string): void {
    this.d.emit({ kind: 'notice', level: 'info', message });
  }
}

/**
 * "apply: 1 host(s) added, 0 removed, 2 with a changed launch". The scheduler's host
 * starting or stopping workers is said as that: it stays in the cluster either way.
 */
function applyLine(diff: Pick<SpecDiff, 'hostsAdded' | 'hostsRemoved' | 'restart'>, scheduler: string): string {
  const added = diff.hostsAdded.filter((h) => h !== scheduler).length;
  const removed = diff.hostsRemoved.filter((h) => h !== scheduler).length;
  const own = diff.hostsAdded.includes(scheduler)
    ? ", the scheduler's host runs workers too"
    : diff.hostsRemoved.includes(scheduler)
      ? ", the scheduler's host runs no workers now"
      : '';
  return `apply: ${added} host(s) added, ${removed} removed${own}, ${diff.restart.length} with a changed launch`;
}

/** What an undrain does: starts, and held workers wanted again (kept as they run). */
function undrainLine(back: readonly string[], r: Pick<DrainResult, 'replaced' | 'kept'>): string {
  const parts = [
    ...(r.replaced.length ? [`starting ${r.replaced.length} worker(s) the drain had no room for`] : []),
    ...(r.kept?.length ? [`keeping ${r.kept.length} held worker(s) running, wanted again`] : []),
  ];
  return `undrain: ${back.join(', ')}${parts.length ? `: ${parts.join('; ')}` : ''}`;
}
