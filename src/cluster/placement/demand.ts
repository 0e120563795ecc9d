// Pending restricted work (the scheduler preload's groups) → how many workers able to
// run it are wanted. Dask's adaptive_target does the same for plain work: expected
// seconds of work / target_duration = threads wanted, capped by the number of tasks
// (scheduler.py adaptive_target); here the threads are a worker's slots for that
// restriction set, since GPU=2 on a worker runs two GPU=1 tasks at once.
import { satisfies, slotsFor, type Resources } from './resource-amounts.js';

export interface PendingGroup {
  resources: Resources;
  /** No current worker declares enough. */
  unrunnable: number;
  /** Assigned to a worker, waiting there for its resources. */
  waiting: number;
  running: number;
  /** Expected seconds of the unrunnable + waiting tasks. */
  durationS: number;
}

/** What one new worker on a host would declare. */
export interface WorkerShape {
  resources: Resources;
  nthreads: number;
}

export interface WantedGroup {
  resources: Resources;
  /** Workers able to run this set wanted in all (existing ones included). */
  workers: number;
  /** Restricted tasks not finished: unrunnable + waiting + running. */
  tasks: number;
}

/**
 * One entry per group with unfinished tasks. Running tasks keep their slots; the
 * pending ones want ceil(duration / targetDuration) more, at most one per task; the
 * slots become workers at the best slots-per-worker any host offers (1 when none
 * declares the set: the demand is then unplaceable and said so, not sized).
 */
export function workersWanted(
  groups: readonly PendingGroup[],
  shapes: readonly WorkerShape[],
  targetDurationS: number,
): WantedGroup[] {
  const out: WantedGroup[] = [];
  for (const g of groups) {
    const pending = g.unrunnable + g.waiting;
    const tasks = pending + g.running;
    if (tasks <= 0) continue;
    const byTime = targetDurationS > 0 ? Math.ceil(g.durationS / targetDurationS) : pending;
    const concurrency = g.running + Math.min(pending, Math.max(pending > 0 ? 1 : 0, byTime));
    const perWorker = Math.max(
      1,
      ...shapes
        .filter((s) => satisfies(s.resources, g.resources))
        .map((s) => slotsFor(s.resources, s.nthreads, g.resources)),
    );
    out.push({ resources: g.resources, workers: Math.ceil(concurrency / perWorker), tasks });
  }
  return out;
}
