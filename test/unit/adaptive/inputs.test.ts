// What an adaptive step reads (adaptive/inputs.ts): the plan's workers as the policy
// sees them, the order idle workers should go in, the size of a new worker.
import { describe, expect, it } from 'vitest';
import { adaptiveWorkers, closeOrder } from '../../../src/adaptive/inputs.js';
import { newWorkerSize } from '../../../src/config/worker-size.js';

const plan = [
  { name: 'a-0', launched: true, nthreads: 2 },
  { name: 'a-1', launched: true, nthreads: 2 },
  { name: 'b-0', launched: false, nthreads: 4 },
];

describe('adaptive inputs', () => {
  it("marks registered, starting (launched, not registered) and planned workers, with the scheduler's sizes", () => {
    const seen = [{ name: 'a-0', nthreads: 3, memoryLimit: 1000, metrics: { executing: 2 } }];
    expect(adaptiveWorkers(plan, seen)).toEqual([
      { name: 'a-0', registered: true, starting: false, nthreads: 3, memoryBytes: 1000, busy: true },
      { name: 'a-1', registered: false, starting: true, nthreads: 2, memoryBytes: 0, busy: false },
      { name: 'b-0', registered: false, starting: false, nthreads: 4, memoryBytes: 0, busy: false },
    ]);
  });

  it('orders close candidates by tasks executing, then memory held; workers outside the plan are not candidates', () => {
    const seen = [
      { name: 'a-0', nthreads: 2, memoryLimit: 0, metrics: { executing: 1, memory: 10 } },
      { name: 'a-1', nthreads: 2, memoryLimit: 0, metrics: { executing: 0, memory: 900 } },
      { name: 'b-0', nthreads: 2, memoryLimit: 0, metrics: { executing: 0, memory: 100 } },
      { name: 'x-9', nthreads: 2, memoryLimit: 0 },
    ];
    expect(closeOrder(plan, seen)).toEqual(['b-0', 'a-1', 'a-0']);
  });

  it('sizes a new worker from its options; "auto" or 0 memory counts as no limit', () => {
    expect(newWorkerSize({ nthreads: 4, memoryLimit: '2GiB' })).toEqual({ nthreads: 4, memoryBytes: 2 * 2 ** 30 });
    expect(newWorkerSize({ nthreads: 2, memoryLimit: 'auto' })).toEqual({ nthreads: 2, memoryBytes: 0 });
    // Not a size: what the registered workers have, once there are some.
    const seen = [
      { name: 'a-0', nthreads: 2, memoryLimit: 3e9 },
      { name: 'b-0', nthreads: 2, memoryLimit: 4e9 },
    ];
    expect(newWorkerSize({ nthreads: 2, memoryLimit: 'auto' }, seen)).toEqual({ nthreads: 2, memoryBytes: 4e9 });
    expect(newWorkerSize({ nthreads: 2, memoryLimit: '0.5' }, seen)).toEqual({ nthreads: 2, memoryBytes: 4e9 });
    expect(newWorkerSize({ nthreads: 2, memoryLimit: '2GiB' }, seen)).toEqual({
      nthreads: 2,
      memoryBytes: 2 * 2 ** 30,
    });
    expect(newWorkerSize({ nthreads: 2, memoryLimit: '0' })).toEqual({ nthreads: 2, memoryBytes: 0 });
    expect(newWorkerSize(undefined)).toEqual({ nthreads: 1, memoryBytes: 0 });
  });
});
