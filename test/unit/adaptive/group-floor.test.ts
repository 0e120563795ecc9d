// A worker that a group minimum keeps is no candidate to retire: the policy counts no
// waiting rounds toward it (it said "waiting 2/3 to retire gpu-0" forever, the resource
// step keeping it at every third), and its reason says the minimum keeps it.
import { describe, expect, it } from 'vitest';
import type { AdaptiveSpec } from '../../../src/config/spec.js';
import {
  initialAdaptiveState,
  step,
  type AdaptiveInput,
  type AdaptiveState,
  type AdaptiveWorker,
  type StepResult,
} from '../../../src/adaptive/policy.js';
import { groupFloors } from '../../../src/adaptive/scale-down.js';

const spec: AdaptiveSpec = { minimum: 0, maximum: 10, intervalMs: 1000, waitCount: 3, targetDurationMs: 5000 };
const w = (name: string): AdaptiveWorker => ({ name, registered: true, starting: false, nthreads: 2, memoryBytes: 0 });
const gpuGroup = [{ name: 'gpu', hosts: ['gpu1'], minimum: 1, maximum: 2 }];

function steps(n: number, over: Partial<AdaptiveInput>): StepResult[] {
  let state: AdaptiveState = initialAdaptiveState;
  return Array.from({ length: n }, (_, i) => {
    const r = step(
      state,
      {
        now: i * 1000,
        rawTarget: 0,
        daskVersion: '2023.8.0',
        workers: [],
        newWorker: { nthreads: 2, memoryBytes: 0 },
        ...over,
      },
      spec,
    );
    state = r.state;
    return r;
  });
}

describe('a worker a group minimum keeps', () => {
  it('is not waited on: no count, the same reason every step, no retirement', () => {
    const floors = groupFloors(gpuGroup, [{ name: 'gpu1-0', host: 'gpu1' }]);
    const rs = steps(4, { workers: [w('gpu1-0')], floors });
    expect(rs.map((r) => r.decision)).toEqual(
      Array(4).fill({ status: 'same', reason: 'kept by the minimum: gpu1-0 (group gpu minimum 1)' }),
    );
    expect(rs.map((r) => r.state.closeCounts.size)).toEqual([0, 0, 0, 0]);
    expect(rs.every((r) => !r.log.reason.includes('waiting'))).toBe(true);
  });

  it('another idle worker goes in its place; one above the minimum may go', () => {
    const plan = [
      { name: 'gpu1-0', host: 'gpu1' },
      { name: 'gpu1-1', host: 'gpu1' },
      { name: 'cpu1-0', host: 'cpu1' },
    ];
    const floors = groupFloors(gpuGroup, plan);
    // Target 0 of 3: the scheduler would close the GPU workers first; one of them is kept.
    const rs = steps(3, {
      workers: plan.map((p) => w(p.name)),
      schedulerRecommends: ['gpu1-1', 'gpu1-0', 'cpu1-0'],
      floors,
    });
    expect(rs[0]!.log.reason).toBe(
      'waiting 1/3 to retire gpu1-1, cpu1-0; kept by the minimum: gpu1-0 (group gpu minimum 1)',
    );
    expect(rs[2]!.decision).toEqual({ status: 'down', workers: ['gpu1-1', 'cpu1-0'] });
  });
});
