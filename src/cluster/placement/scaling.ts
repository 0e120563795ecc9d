// Changes to the desired worker set: a worker count (scale, adaptive up), names to
// retire (adaptive down), the size a dead controller was keeping (re-adoption). Pure
// over ClusterState; the next reconcile tick makes the processes follow.
import type { ClusterState } from '../cluster-state.js';
import { explainShortfall, placeWorkers, type PlacedWorker } from './placement.js';
import { nameAdds } from './new-worker-names.js';
import type { KeptWorker } from '../retire-hold.js';

export interface ScaleResult {
  desired: number;
  /** Why fewer than asked can be placed, when so, with how many were asked (explainShortfall). */
  message?: string;
  /** Workers it retired that the scheduler kept (results with nowhere to go): still running. */
  held?: KeptWorker[];
  /** Those stopped anyway (`--force`): their results are lost. */
  dropped?: KeptWorker[];
}

/**
 * n workers. `retryCrashed` is a user's "scale again to retry": a crash-looping worker
 * gets a fresh start and its host's degraded mark goes, but this scale's new workers are
 * placed as the hosts stood before the retry (a crash-looping host gets none: the retry
 * has to succeed first). Adaptive steps do not pass it, or a crash loop would be retried
 * every interval.
 */
export function scaleTo(s: ClusterState, n: number, opts: { retryCrashed?: boolean } = {}): ScaleResult {
  const hosts = s.placementHosts();
  for (const w of opts.retryCrashed ? s.desiredWorkers : []) {
    if (s.supervisor.status(w.name).state !== 'crash-looping') continue;
    s.supervisor.reset(w.name);
    s.health.clearDegraded(w.host);
  }
  const p = placeWorkers(n, hosts, s.desiredWorkers);
  for (const w of [...p.added, ...p.removed]) s.supervisor.reset(w.name);
  s.desiredWorkers = p.workers;
  s.drainShort = drainedRoom(s, n, p.workers);
  return { desired: p.workers.length, message: explainShortfall(n, p, hosts) };
}

/**
 * Of the n asked, those short that only drained hosts have room for: undrain starts them
 * (as the shortfall hint says), where a size the hosts cannot hold at all is not kept.
 */
function drainedRoom(s: ClusterState, n: number, placed: readonly PlacedWorker[]): number {
  if (placed.length >= n || s.drained.size === 0) return 0;
  const undrained = s.placementHosts().map((h) => (s.drained.has(h.name) ? { ...h, healthy: true } : h));
  return placeWorkers(n, undrained, placed).workers.length - placed.length;
}

/** What scaleTo(n) would give, changing nothing: for a client about to wait for n workers. */
export function placeable(s: ClusterState, n: number): ScaleResult {
  const hosts = s.placementHosts();
  const p = placeWorkers(n, hosts, s.desiredWorkers);
  return { desired: p.workers.length, message: explainShortfall(n, p, hosts) };
}

/** New workers on these hosts (adaptive placed them by resource), named like any other. */
export function addWorkers(s: ClusterState, adds: readonly { host: string; count: number }[]): void {
  const added = nameAdds(adds, s.desiredWorkers);
  for (const w of added) s.supervisor.reset(w.name);
  s.desiredWorkers = [...s.desiredWorkers, ...added];
}

/** These workers leave the desired set by name (adaptive scale-down picks which). */
export function dropWorkers(s: ClusterState, names: readonly string[]): void {
  const gone = new Set(names);
  s.desiredWorkers = s.desiredWorkers.filter((w) => !gone.has(w.name));
  for (const n of names) s.supervisor.reset(n);
}

/**
 * The size a dead controller was keeping, not the host file's: a `scale 10` (or an
 * adaptive minimum) must survive a controller restart, and adopted workers keep their
 * names.
 */
export function keepSize(s: ClusterState, n: number, adoptedWorkers: readonly PlacedWorker[]): void {
  s.desiredWorkers = placeWorkers(n, s.placementHosts(), adoptedWorkers).workers;
}
