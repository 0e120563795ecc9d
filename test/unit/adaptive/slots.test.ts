import { describe, expect, it } from 'vitest';
import { slotsWarning } from '../../../src/adaptive/slots.js';

describe('slotsWarning', () => {
  it("says how many workers can be placed when the maximum is above the hosts' slots", () => {
    expect(slotsWarning(10, [{ maxWorkers: 1 }, { maxWorkers: 1 }])).toBe(
      'maximum 10: the hosts have 2 worker slots (max_workers), so at most 2 workers can be placed',
    );
    expect(slotsWarning(2, [{ maxWorkers: 1 }, { maxWorkers: 1 }])).toBeUndefined();
    expect(slotsWarning(3, [{ maxWorkers: 1 }])).toBe(
      'maximum 3: the hosts have 1 worker slot (max_workers), so at most 1 worker can be placed',
    );
    expect(slotsWarning(Infinity, [{ maxWorkers: 1 }])).toBeUndefined();
  });
  // Found by the h43trial trial: `adapt --min 5 --max 6` on 2 slots warned of the maximum
  // only, and a minimum no placement can reach under an unbounded maximum was taken
  // without a word (a host file's is refused).
  it('says so when the minimum is above the slots, before the maximum', () => {
    const two = [{ maxWorkers: 1 }, { maxWorkers: 1 }];
    expect(slotsWarning(6, two, 5)).toBe(
      'minimum 5: the hosts have 2 worker slots (max_workers), so at most 2 workers can be placed',
    );
    expect(slotsWarning(Infinity, two, 3)).toBe(
      'minimum 3: the hosts have 2 worker slots (max_workers), so at most 2 workers can be placed',
    );
    expect(slotsWarning(2, two, 2)).toBeUndefined();
  });
});
