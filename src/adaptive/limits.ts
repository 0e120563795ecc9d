// Adaptive settings that would hurt rather than adapt: a step interval so short the
// loop spins, and cores/memory maxima below one worker, which clip every target to 0.
// The CLI and the host file refuse them first; the controller checks what reaches it.
import { bytes } from '../events/units.js';
import { MIN_ADAPTIVE_INTERVAL_MS as MIN_INTERVAL_MS } from '../config/defaults.js';
import type { AdaptiveSpec } from '../config/spec.js';
import type { PerWorker } from './target.js';

export { MIN_INTERVAL_MS };

/** Why this spec cannot be used for a worker like perWorker, or undefined. */
export function adaptiveRefusal(
  spec: AdaptiveSpec,
  perWorker: PerWorker,
): { message: string; hint: string } | undefined {
  if (spec.intervalMs < MIN_INTERVAL_MS) {
    return {
      message: `--interval ${spec.intervalMs}ms is below the minimum of ${MIN_INTERVAL_MS}ms`,
      hint: "Dask's default is 1s",
    };
  }
  const { nthreads, memoryBytes } = perWorker;
  if (spec.maximumCores !== undefined && nthreads > 0 && spec.maximumCores < nthreads) {
    return {
      message: `--maximum-cores ${spec.maximumCores} is less than one worker's ${nthreads} threads: adaptive could never keep a worker`,
      hint: `raise it to at least ${nthreads}, or use --max 0 for no workers`,
    };
  }
  if (spec.maximumMemory !== undefined && memoryBytes > 0 && spec.maximumMemory < memoryBytes) {
    return {
      message: `--maximum-memory ${bytes(spec.maximumMemory)} (${spec.maximumMemory} bytes) is less than one worker's memory limit, ${bytes(memoryBytes)}: adaptive could never keep a worker`,
      // Exact: a rounded size could still be below the limit.
      hint: `raise it to at least ${memoryBytes} bytes, or use --max 0 for no workers`,
    };
  }
  return undefined;
}
