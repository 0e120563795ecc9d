// The adaptive settings of a running cluster: Dask's defaults, a change merged over the
// settings in force, and the one setting a running scheduler cannot take.
import type { AdaptiveSpec } from '../config/spec.js';

/** Dask's defaults (distributed.yaml `adaptive:`): interval 1s, wait-count 3, target-duration 5s. */
export const DASK_ADAPTIVE_DEFAULTS: AdaptiveSpec = {
  minimum: 0,
  maximum: Infinity,
  intervalMs: 1_000,
  waitCount: 3,
  targetDurationMs: 5_000,
};

/**
 * target_duration is the scheduler's configuration, read when it starts: a new value
 * cannot reach a running scheduler, so the spec keeps the running one (what status
 * shows is what the scheduler uses) and the caller is told.
 */
export function keepTargetDuration(
  session: { spec: { adaptive?: AdaptiveSpec } },
  spec: AdaptiveSpec,
  asked: number | null | undefined,
): string[] {
  const running = session.spec.adaptive?.targetDurationMs ?? DASK_ADAPTIVE_DEFAULTS.targetDurationMs;
  spec.targetDurationMs = running;
  if (asked === undefined || asked === null || asked === running) return [];
  return [
    `target_duration is read by the scheduler when it starts: the running scheduler keeps ${running / 1000}s, not ${asked / 1000}s; ` +
      'set adaptive: {target_duration: …} in the host file for the next up',
  ];
}

export function mergeAdaptive(
  base: AdaptiveSpec | undefined,
  over: Partial<Record<keyof AdaptiveSpec, number | null>>,
): AdaptiveSpec {
  const out: AdaptiveSpec = { ...DASK_ADAPTIVE_DEFAULTS, ...(base ?? {}) };
  for (const [k, v] of Object.entries(over) as [keyof AdaptiveSpec, number | null | undefined][]) {
    if (v === undefined) continue;
    // null: Dask's default again (none for the optional bounds), never a setting left unset.
    (out as unknown as Record<string, number | undefined>)[k] =
      v === null ? (DASK_ADAPTIVE_DEFAULTS[k] as number | undefined) : v;
  }
  return out;
}
