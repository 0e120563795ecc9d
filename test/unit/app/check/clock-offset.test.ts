// A host's clock is read once, by the probe's first line; ours when the command was
// sent and when that line arrived. Only a reading outside that window is an offset.
import { describe, expect, it } from 'vitest';
import { clockOffset } from '../../../../src/app/check/check-host.js';

describe('clockOffset', () => {
  it('is 0 for a reading inside the window, however late it arrived (a busy controller)', () => {
    expect(clockOffset(1000.5, 1000, 1003.2)).toBe(0);
  });

  it('is the distance to the window for a host behind or ahead', () => {
    expect(clockOffset(995, 1000, 1000.2)).toBeCloseTo(-5);
    expect(clockOffset(1007.2, 1000, 1000.2)).toBeCloseTo(7);
  });
});
