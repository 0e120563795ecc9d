import { describe, expect, it } from 'vitest';
import type { AdaptiveSpec } from '../../../src/config/spec.js';
import { DASK_ADAPTIVE_DEFAULTS } from '../../../src/adaptive/settings.js';
import { slotsWarning } from '../../../src/adaptive/slots.js';
import { workerBounds } from '../../../src/adaptive/target.js';

const GiB = 2 ** 30;
// Workers of 2 threads and 8 GiB.
const warning = (s: Partial<AdaptiveSpec>, hosts: { maxWorkers: number }[]): string | undefined =>
  slotsWarning(workerBounds({ ...DASK_ADAPTIVE_DEFAULTS, ...s }, { nthreads: 2, memoryBytes: 8 * GiB }), hosts);

describe('slotsWarning', () => {
  it("says how many workers can be placed when the maximum is above the hosts' slots", () => {
    expect(warning({ maximum: 10 }, [{ maxWorkers: 1 }, { maxWorkers: 1 }])).toBe(
      'maximum 10: the hosts have 2 worker slots (max_workers), so at most 2 workers can be placed',
    );
    expect(warning({ maximum: 2 }, [{ maxWorkers: 1 }, { maxWorkers: 1 }])).toBeUndefined();
    expect(warning({ maximum: 3 }, [{ maxWorkers: 1 }])).toBe(
      'maximum 3: the hosts have 1 worker slot (max_workers), so at most 1 worker can be placed',
    );
    expect(warning({ maximum: Infinity }, [{ maxWorkers: 1 }])).toBeUndefined();
  });
  // Found by the h43trial trial: `adapt --min 5 --max 6` on 2 slots warned of the maximum
  // only, and a minimum no placement can reach under an unbounded maximum was taken
  // without a word (a host file's is refused).
  it('says so when the minimum is above the slots, before the maximum', () => {
    const two = [{ maxWorkers: 1 }, { maxWorkers: 1 }];
    expect(warning({ minimum: 5, maximum: 6 }, two)).toBe(
      'minimum 5: the hosts have 2 worker slots (max_workers), so at most 2 workers can be placed',
    );
    expect(warning({ minimum: 3, maximum: Infinity }, two)).toBe(
      'minimum 3: the hosts have 2 worker slots (max_workers), so at most 2 workers can be placed',
    );
    expect(warning({ minimum: 2, maximum: 2 }, two)).toBeUndefined();
  });
  // Also from that trial: `--minimum-memory` / `--minimum-cores` no placement can reach
  // were taken without a word.
  it('a minimum in memory or cores is counted in workers and named as given', () => {
    const two = [{ maxWorkers: 1 }, { maxWorkers: 1 }];
    expect(warning({ maximum: Infinity, minimumMemory: 64 * GiB }, two)).toBe(
      'minimum_memory 64G (8 workers): the hosts have 2 worker slots (max_workers), so at most 2 workers can be placed',
    );
    expect(warning({ maximum: Infinity, minimumCores: 6 }, two)).toBe(
      'minimum_cores 6 (3 workers): the hosts have 2 worker slots (max_workers), so at most 2 workers can be placed',
    );
    expect(warning({ maximum: Infinity, minimumCores: 4 }, two)).toBeUndefined();
  });
});
