// A rolling restart: workers restarted a batch at a time, each batch registered with the
// scheduler (on whatever spec is now in force) before the next is retired, so at most
// `maxUnavailable` workers are ever missing. A replacement that exits or does not
// register in time stops the roll; the workers not reached keep running as they were.
import { delay } from './clock.js';
import type { ClusterState, TrackedProcess } from './cluster-state.js';
import type { Clock } from './ports.js';

export interface RollDeps {
  state: ClusterState;
  clock: Clock;
  signal: AbortSignal;
  /** Retire and stop one worker, then start it again (Reconciler.restartWorker). */
  restart(name: string): Promise<void>;
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

/** `gone`: workers retired while the roll ran (a drain, a scale down), not restarted. */
export type RollResult =
  | { kind: 'done'; restarted: string[]; gone?: string[] }
  | { kind: 'stopped'; restarted: string[]; failed: string; reason: string; notReached: string[]; gone?: string[] };

export async function rollingRestart(d: RollDeps, names: readonly string[], o: RollOptions): Promise<RollResult> {
  const restarted: string[] = [];
  const gone: string[] = [];
  const size = Math.max(1, o.maxUnavailable);
  let next = 0;
  for (;;) {
    // Each batch from the workers still wanted: one retired since the roll was asked for
    // (a drain, a scale down) is not restarted, and does not stop the roll.
    const batch: string[] = [];
    while (batch.length < size && next < names.length) {
      const n = names[next++]!;
      if (d.state.desiredWorkers.some((w) => w.name === n)) {
        batch.push(n);
      } else {
        gone.push(n);
        d.state.pendingRoll.delete(n);
      }
    }
    const also = gone.length ? { gone } : {};
    if (!batch.length) return { kind: 'done', restarted, ...also };
    const before = new Map(batch.map((n) => [n, d.state.processes.get(n)]));
    d.progress(`restarting ${batch.join(', ')} (${restarted.length + batch.length} of ${names.length - gone.length})`);
    await Promise.all(batch.map((n) => d.restart(n)));
    const failure = await waitRegistered(d, before, o);
    if (failure) return { kind: 'stopped', restarted, ...failure, notReached: names.slice(next), ...also };
    restarted.push(...batch);
    for (const n of batch) d.state.pendingRoll.delete(n);
  }
}

/** Every worker of the batch running as a new process and registered, or why not. */
async function waitRegistered(d: RollDeps, before: Map<string, TrackedProcess | undefined>, o: RollOptions): Promise<{ failed: string; reason: string } | undefined> {
  const deadline = d.clock.now() + o.timeoutMs;
  for (;;) {
    let waiting: string | undefined;
    for (const [name, old] of before) {
      const t = d.state.processes.get(name);
      const s = d.state.supervisor.status(name);
      if (s.consecutiveFailures > 0 || s.state === 'crash-looping') return { failed: name, reason: `${name} exited after its restart${lastLine(t)}` };
      if (!t || t === old || t.exit || !d.state.registered.has(name)) waiting = name;
    }
    if (waiting === undefined) return undefined;
    if (d.signal.aborted) return { failed: waiting, reason: 'the cluster is stopping' };
    if (d.clock.now() >= deadline) return { failed: waiting, reason: `${waiting} did not register within ${o.timeoutMs / 1000}s` };
    await delay(d.clock, o.pollMs, d.signal);
    await d.tick();
  }
}

function lastLine(t: TrackedProcess | undefined): string {
  const line = t?.tail.at(-1);
  return line ? `: ${line}` : '';
}
