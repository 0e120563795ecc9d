// adapt's settings over those in force: a setting left out keeps its value, null puts
// Dask's default back (no bound, for a maximum).
import { describe, expect, it } from 'vitest';
import { DASK_ADAPTIVE_DEFAULTS, mergeAdaptive } from '../../../src/adaptive/settings.js';
import { adaptiveToJson } from '../../../src/control/state-file.js';

const inForce = { minimum: 1, maximum: 4, intervalMs: 2_000, waitCount: 7, targetDurationMs: 5_000, maximumCores: 8 };

describe('mergeAdaptive', () => {
  it('keeps what is left out and takes what is given', () => {
    expect(mergeAdaptive(inForce, { maximum: 6 })).toEqual({ ...inForce, maximum: 6 });
    expect(mergeAdaptive(undefined, {})).toEqual(DASK_ADAPTIVE_DEFAULTS);
  });

  // Python's adapt(wait_count=None) sent null: the setting became undefined, and a state
  // file without adaptive.waitCount is refused by every command.
  it("null is Dask's default again: no bound for a maximum, the default for the rest", () => {
    const merged = mergeAdaptive(inForce, {
      minimum: null,
      maximum: null,
      intervalMs: null,
      waitCount: null,
      targetDurationMs: null,
      maximumCores: null,
    });
    expect(merged).toEqual({ ...DASK_ADAPTIVE_DEFAULTS, maximumCores: undefined });
    expect(adaptiveToJson(merged)).toMatchObject({ minimum: 0, maximum: null, intervalMs: 1_000, waitCount: 3 });
  });
});
