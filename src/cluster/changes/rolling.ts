// A rolling restart: workers restarted a batch at a time, each batch registered with the
// scheduler (on whatever spec is now in force) before the next is retired, so at most
// `maxUnavailable` workers are ever missing. A replacement that exits or does not
// register in time stops the roll, as does a worker whose host does not answer; the
// workers not reached keep running as they were.
import { delay } from '../clock.js';
import type { ClusterState, TrackedProcess } from '../cluster-state.js';
import type { Clock } from '../ports.js';
import { keptAndDropped, totalResults, type KeptWorker, type RetireStop } from '../retire-hold.js';

export interface RollDeps {
  state: ClusterState;
  clock: Clock;
  signal: AbortSignal;
  /**
   * Retire and stop one worker, then start it again (Reconciler.restartWorker); one
   * whose results the scheduler could not move is left running (held).
   */
  restart(name: string): Promise<RetireStop>;
  /** Re-observes the scheduler's worker list (a reconcile tick). */
  tick(): Promise<void>;
  progress(line: string): void;
}

export interface RollOptions {
  maxUnavailable: number;
  /** How long one batch may take to register. */
  timeoutMs: number;
  /** How often the scheduler's worker list is looked at while waiting. */
  pollMs: number;
}

/**
 * `gone`: workers retired while the roll ran (a drain, a scale down), not restarted.
 * `dropped`: restarted with `--force` though the scheduler could not move their results
 * (lost). `held`: the roll stopped at these, which hold results nothing else could take.
 */
export type RollResult =
  | { kind: 'done'; restarted: string[]; gone?: string[]; dropped?: KeptWorker[] }
  | {
      kind: 'stopped';
      restarted: string[];
      failed: string;
      reason: string;
      notReached: string[];
      gone?: string[];
      dropped?: KeptWorker[];
      held?: KeptWorker[];
    };

export async function rollingRestart(d: RollDeps, names: readonly string[], o: RollOptions): Promise<RollResult> {
  const restarted: string[] = [];
  const gone: string[] = [];
  const dropped: KeptWorker[] = [];
  const size = Math.max(1, o.maxUnavailable);
  let next = 0;
  for (;;) {
    // Each batch from the workers still wanted: one retired since the roll was asked for
    // (a drain, a scale down) is not restarted, and does not stop the roll.
    const batch: string[] = [];
    let unreachable: string | undefined;
    while (batch.length < size && next < names.length) {
      const n = names[next++]!;
      const w = d.state.desiredWorkers.find((x) => x.name === n);
      if (w && !d.state.usable(w.host)) {
        // Its host does not answer: nothing there can be stopped or started, and a wait
        // for its registration would only run out. Said once the batch before it is done.
        if (batch.length) next--;
        else unreachable = w.host;
        break;
      }
      if (w) {
        batch.push(n);
      } else {
        gone.push(n);
        d.state.pendingRoll.delete(n);
      }
    }
    const also = { ...(gone.length ? { gone } : {}), ...(dropped.length ? { dropped } : {}) };
    if (unreachable !== undefined)
      return {
        kind: 'stopped',
        restarted,
        failed: names[next - 1]!,
        reason: `its host ${unreachable} does not answer: not restarted (its workers start anew when it answers again)`,
        notReached: names.slice(next),
        ...also,
      };
    if (!batch.length) return { kind: 'done', restarted, ...also };
    const before = new Map(batch.map((n) => [n, d.state.processes.get(n)]));
    const total = names.length - gone.length;
    const began = d.clock.now();
    d.progress(`restarting ${batch.join(', ')} (${restarted.length + batch.length} of ${total})`);
    const outcomes = await Promise.all(batch.map(async (n) => [n, await d.restart(n)] as const));
    const kept = keptAndDropped(new Map(outcomes));
    dropped.push(...kept.dropped);
    const held = kept.held.map((w) => w.name);
    const failure = await waitRegistered(d, new Map([...before].filter(([n]) => !held.includes(n))), o);
    if (failure)
      return {
        kind: 'stopped',
        restarted,
        ...failure,
        notReached: [...held, ...names.slice(next)],
        ...also,
        ...(dropped.length ? { dropped } : {}),
      };
    const done = batch.filter((n) => !held.includes(n));
    restarted.push(...done);
    for (const n of done) d.state.pendingRoll.delete(n);
    // Said as each batch completes: `restart` prints it (it said nothing for a minute).
    if (done.length)
      d.progress(
        `restarted ${restarted.length}/${total}: ${done.join(', ')} (${Math.round((d.clock.now() - began) / 1000)} s)`,
      );
    if (held.length)
      return {
        kind: 'stopped',
        restarted,
        ...heldStop(kept.held),
        notReached: [...held.slice(1), ...names.slice(next)],
        ...also,
        ...(dropped.length ? { dropped } : {}),
      };
  }
}

/** The roll stops at workers the scheduler would not retire: they run on as they were. */
function heldStop(held: KeptWorker[]): { failed: string; reason: string; held: KeptWorker[] } {
  const names = held.map((w) => w.name).join(', ');
  return {
    failed: held[0]!.name,
    held,
    reason: `the scheduler could not move ${totalResults(held)} only ${names} ${held.length > 1 ? 'hold' : 'holds'} (no other running worker to take them); not restarted, still running (--force restarts and loses them)`,
  };
}

/** Every worker of the batch running as a new process and registered, or why not. */
async function waitRegistered(
  d: RollDeps,
  before: Map<string, TrackedProcess | undefined>,
  o: RollOptions,
): Promise<{ failed: string; reason: string } | undefined> {
  const deadline = d.clock.now() + o.timeoutMs;
  for (;;) {
    let waiting: string | undefined;
    for (const [name, old] of before) {
      const t = d.state.processes.get(name);
      const s = d.state.supervisor.status(name);
      if (s.consecutiveFailures > 0 || s.state === 'crash-looping')
        return { failed: name, reason: `${name} exited after its restart${lastLine(t)}` };
      if (!t || t === old || t.exit || !d.state.registered.has(name)) waiting = name;
    }
    if (waiting === undefined) return undefined;
    if (d.signal.aborted) return { failed: waiting, reason: 'the cluster is stopping' };
    if (d.clock.now() >= deadline)
      return { failed: waiting, reason: `${waiting} did not register within ${o.timeoutMs / 1000}s` };
    await delay(d.clock, o.pollMs, d.signal);
    await d.tick();
  }
}

function lastLine(t: TrackedProcess | undefined): string {
  const line = t?.tail.at(-1);
  return line ? `: ${line}` : '';
}
