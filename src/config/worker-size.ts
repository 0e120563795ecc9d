// The size of a worker we would start, from its options: threads, and its memory limit
// in bytes. Config's rules check bounds with it; the adaptive step sizes new workers.
import { parseBytes } from './durations.js';
import type { WorkerOptions } from './spec.js';

/**
 * Threads and memory limit (bytes, 0 = none or not known yet) of a worker we would start.
 * A memory_limit that is not a size (auto, a fraction of the host's memory) is known
 * once workers have registered: the largest of theirs.
 */
export function newWorkerSize(
  opts: Pick<WorkerOptions, 'nthreads' | 'memoryLimit'> | undefined,
  registered: readonly { memoryLimit: number }[] = [],
): { nthreads: number; memoryBytes: number } {
  const limit = opts?.memoryLimit ?? 'auto';
  let memoryBytes: number | undefined;
  try {
    memoryBytes = /^\d/.test(limit) && !/^0(\.\d+)?$/.test(limit) ? parseBytes(limit) : undefined;
  } catch {
    memoryBytes = undefined;
  }
  return {
    nthreads: opts?.nthreads ?? 1,
    memoryBytes: memoryBytes ?? Math.max(0, ...registered.map((w) => w.memoryLimit)),
  };
}
