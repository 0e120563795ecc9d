import { describe, expect, it } from 'vitest';
import { workersWanted, type PendingGroup } from '../../../../src/cluster/placement/demand.js';

const g = (over: Partial<PendingGroup>): PendingGroup => ({
  resources: { GPU: 1 },
  unrunnable: 0,
  waiting: 0,
  running: 0,
  durationS: 0,
  ...over,
});
const gpuHost = { resources: { GPU: 2 }, nthreads: 4 };

describe('workersWanted', () => {
  it('10 unrunnable tasks of unknown duration (0.5 s each) at target_duration 5 s want one worker', () => {
    expect(workersWanted([g({ unrunnable: 10, durationS: 5 })], [gpuHost], 5)).toEqual([
      { resources: { GPU: 1 }, workers: 1, tasks: 10 },
    ]);
  });

  it("sizes by expected seconds over target_duration, in the best host's slots (GPU=2 runs two GPU=1 tasks)", () => {
    // 2 running keep their slots; 24 s pending / 5 s = 5 more slots; 7 slots / 2 per worker = 4.
    const out = workersWanted(
      [g({ waiting: 8, running: 2, durationS: 24 })],
      [{ resources: { GPU: 1 }, nthreads: 8 }, gpuHost],
      5,
    );
    expect(out[0]!.workers).toBe(4);
  });

  it('wants at most one slot per pending task, however long they are', () => {
    expect(
      workersWanted([g({ unrunnable: 2, durationS: 200 })], [{ resources: { GPU: 1 }, nthreads: 1 }], 5)[0]!.workers,
    ).toBe(2);
  });

  it('wants at least one slot for pending work with no duration estimate', () => {
    expect(workersWanted([g({ unrunnable: 3, durationS: 0 })], [gpuHost], 5)[0]!.workers).toBe(1);
  });

  it('sizes at one slot per worker when no host declares the set (it is reported as unplaceable)', () => {
    expect(workersWanted([g({ resources: { TPU: 1 }, unrunnable: 3, durationS: 30 })], [gpuHost], 5)[0]!.workers).toBe(
      3,
    );
  });

  it('keeps running-only sets (their workers are protected) and drops finished ones', () => {
    expect(workersWanted([g({ running: 2 }), g({ resources: { X: 1 } })], [gpuHost], 5)).toEqual([
      { resources: { GPU: 1 }, workers: 1, tasks: 2 },
    ]);
  });
});
