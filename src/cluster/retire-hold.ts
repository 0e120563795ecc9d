// Workers the scheduler would not retire. Dask aborts a retirement when results only
// that worker holds have no other running worker to go to (none left, or every other one
// paused or retiring too): stopping it then would lose them. Such a worker keeps running
// though no longer desired, and is retired again later: once room appears (a worker added
// elsewhere, the results released) the retirement goes through. Pure over ClusterState.
import type { ClusterState } from './cluster-state.js';

/** How long a held worker waits before its retirement is tried again. */
export const HELD_RETRY_MS = 30_000;

/** What became of a worker the core retired and meant to stop. */
export type RetireStop =
  | { kind: 'stopped' }
  /** Stopped though the scheduler kept it (`--force`): these results are lost. */
  | { kind: 'dropped'; results?: number }
  /** Kept running: the scheduler could not move these results. */
  | { kind: 'held'; results?: number };

/** "20 result(s)", or "its results" when the scheduler did not say how many. */
export function resultsText(n: number | undefined): string {
  return n === undefined ? 'its results' : `${n} result(s)`;
}

/**
 * The workers still held back from a stop at `now`. Those wanted again (an undrain, a
 * scale up) or ended are forgotten; one whose retry time has come is left to the stop.
 */
export function heldBack(s: ClusterState, now: number): Set<string> {
  const out = new Set<string>();
  if (!s.held.size) return out;
  const wanted = new Set(s.desiredWorkers.map((w) => w.name));
  for (const [name, h] of s.held) {
    const t = s.processes.get(name);
    if (wanted.has(name) || !t || t.exit) {
      s.held.delete(name);
      s.forced.delete(name);
    } else if (h.retryAt > now) out.add(name);
  }
  return out;
}

/** Retire these again at the next tick; `force`: stop them even if the scheduler keeps them. */
export function retryHeld(s: ClusterState, names: readonly string[], force: boolean): void {
  for (const n of names) {
    const h = s.held.get(n);
    if (h) h.retryAt = 0;
    if (force) s.forced.add(n);
    s.changed();
  }
}

/** The held workers among these, with what they hold (for a command's answer). */
export function heldAmong(s: ClusterState, names: readonly string[]): { name: string; results?: number }[] {
  return names.flatMap((name) => {
    const h = s.held.get(name);
    return h ? [{ name, ...(h.results !== undefined ? { results: h.results } : {}) }] : [];
  });
}

/** A worker the scheduler kept, and the results only it held. */
export interface KeptWorker {
  name: string;
  results?: number;
}

/** Of these outcomes, the workers kept running and those stopped with their results. */
export function keptAndDropped(outcomes: ReadonlyMap<string, RetireStop>): {
  held: KeptWorker[];
  dropped: KeptWorker[];
} {
  const held: KeptWorker[] = [];
  const dropped: KeptWorker[] = [];
  for (const [name, o] of outcomes) {
    if (o.kind === 'stopped') continue;
    (o.kind === 'held' ? held : dropped).push({ name, ...(o.results !== undefined ? { results: o.results } : {}) });
  }
  return { held, dropped };
}

/** "20 result(s)" summed over these workers; "results" when one of them did not say. */
export function totalResults(ws: readonly KeptWorker[]): string {
  return ws.some((w) => w.results === undefined)
    ? 'results'
    : `${ws.reduce((n, w) => n + (w.results ?? 0), 0)} result(s)`;
}
