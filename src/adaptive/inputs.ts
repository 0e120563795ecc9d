// What one adaptive step reads, built from the controller's plan and the scheduler's
// identity document: the plan's workers as the policy sees them (AdaptiveCore's
// requested vs observed) and the order in which idle workers should go (Dask's
// workers_to_close: least busy, then least memory). A new worker's size: config/worker-size.ts.
import type { AdaptiveWorker } from './scale-down.js';

/** A worker in the plan: wanted, perhaps launched, perhaps registered. */
export interface PlannedWorker {
  name: string;
  /** Its process runs (launched, not ended). */
  launched: boolean;
  /** Threads it is started with, for one that has not registered yet. */
  nthreads: number;
}

/** A worker as the scheduler describes it. */
export interface SchedulerView {
  name: string;
  nthreads: number;
  /** Bytes; 0 means no limit. */
  memoryLimit: number;
  metrics?: { executing?: number; memory?: number };
}

/** The plan's workers, in plan order, with what the scheduler says of each. */
export function adaptiveWorkers(plan: readonly PlannedWorker[], scheduler: readonly SchedulerView[]): AdaptiveWorker[] {
  const byName = new Map(scheduler.map((w) => [w.name, w]));
  return plan.map((p) => {
    const id = byName.get(p.name);
    return {
      name: p.name,
      registered: id !== undefined,
      starting: id === undefined && p.launched,
      nthreads: id?.nthreads || p.nthreads,
      memoryBytes: id?.memoryLimit ?? 0,
      // Without metrics (identityOrWorkers' fallback) its load is unknown: counted busy,
      // so no load-driven retirement is decided on missing data.
      busy: id !== undefined && (id.metrics === undefined || (id.metrics.executing ?? 0) > 0),
    };
  });
}

/**
 * Registered workers of the plan, best to close first: fewest tasks executing, then
 * least memory held (the least data to move). Stands in for workers_to_close, which
 * the scheduler's HTTP API does not offer.
 */
export function closeOrder(plan: readonly PlannedWorker[], scheduler: readonly SchedulerView[]): string[] {
  const planned = new Set(plan.map((p) => p.name));
  // Read in place: an object per comparison made millions a step at 10,000 hosts.
  const executing = (w: SchedulerView) => w.metrics?.executing ?? 0;
  const memory = (w: SchedulerView) => w.metrics?.memory ?? 0;
  return scheduler
    .filter((w) => planned.has(w.name))
    .sort((a, b) => executing(a) - executing(b) || memory(a) - memory(b))
    .map((w) => w.name);
}
