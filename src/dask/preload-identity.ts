// The workers as identity.json would describe them, from the preload's demand answer.
// distributed 2024.x answers /json/identity.json with HTTP 500, and logs a traceback
// into the scheduler's own log, whenever a worker's heartbeat carries fine-performance
// metrics (tuple keys): so where the preload answers, identity.json is never asked.
import type { SchedulerDemand } from './demand-json.js';
import type { WorkerIdentity } from './scheduler-json.js';

/** undefined when a worker came without figures (a preload older than the figures). */
export function registeredFromDemand(d: Pick<SchedulerDemand, 'workers'>): WorkerIdentity[] | undefined {
  if (!d.workers.every((w) => w.figures)) return undefined;
  return d.workers.map((w) => {
    const f = w.figures!;
    return {
      name: w.name,
      address: w.address,
      nthreads: w.nthreads,
      memoryLimit: f.memoryLimitBytes,
      resources: w.resources,
      // processing (assigned to it) stands in for executing: both say "busy", and
      // Dask's own workers_to_close orders by processing too.
      metrics: { cpu: f.cpu, memory: f.memoryBytes, executing: f.processing, raw: {} },
    };
  });
}
