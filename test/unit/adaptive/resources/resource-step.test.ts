// One adaptive step with resources, on its own: Dask's target (resource-blind) against
// the restricted demand the preload reports, per distributed version.
import { describe, expect, it } from 'vitest';
import { resourceStep, type ResourceStepInput } from '../../../../src/adaptive/resources/resource-step.js';

/** The trial's cluster (helper-27): a plain host with 2 slots, a GPU host with 2 (group gpu maximum 2). */
function input(over: Partial<ResourceStepInput>): ResourceStepInput {
  return {
    decision: { status: 'up', n: 4 },
    workers: [
      { name: 'gpu-0', host: 'gpu' },
      { name: 'gpu-1', host: 'gpu' },
      { name: 'cpu-0', host: 'cpu' },
    ],
    hosts: [
      { name: 'cpu', resources: {}, maxWorkers: 2, workers: 1, nthreads: 2 },
      { name: 'gpu', resources: { GPU: 1 }, maxWorkers: 2, workers: 2, nthreads: 2 },
    ],
    // Six 3 s GPU tasks: two running, four assigned to the GPU workers, waiting there.
    groups: [{ resources: { GPU: 1 }, unrunnable: 0, waiting: 4, running: 2, durationS: 12 }],
    plainPending: 0,
    countsUnrunnable: false,
    targetDurationS: 5,
    maximum: 4,
    bounds: [{ name: 'gpu', hosts: ['gpu'], minimum: 0, maximum: 2 }],
    ...over,
  };
}

describe('resourceStep', () => {
  it("starts no plain worker for GPU work beyond the GPU hosts' room, on 2022.12 too (it placed one on the plain host)", () => {
    for (const countsUnrunnable of [false, true]) {
      const r = resourceStep(input({ countsUnrunnable }));
      expect(r.add).toEqual([]);
      expect(r.unmet.map((u) => u.line)).toEqual(['want 5 GPU workers, 2 placeable: gpu: 2 slots']);
    }
  });

  it("with plain tasks waiting beside it, leaves Dask's target to them (their share is not known apart)", () => {
    expect(
      resourceStep(
        input({
          plainPending: 3,
          workers: [
            { name: 'gpu-0', host: 'gpu' },
            { name: 'gpu-1', host: 'gpu' },
          ],
          hosts: [
            { name: 'cpu', resources: {}, maxWorkers: 2, workers: 0, nthreads: 2 },
            { name: 'gpu', resources: { GPU: 1 }, maxWorkers: 2, workers: 2, nthreads: 2 },
          ],
        }),
      ).add,
    ).toEqual([{ host: 'cpu', count: 2 }]);
  });

  it('on 2022.12, unrunnable work (no able worker) counts only as the 1 worker it asks at 0 workers', () => {
    const tpu = {
      groups: [{ resources: { TPU: 1 }, unrunnable: 2, waiting: 0, running: 0, durationS: 6 }],
      bounds: [],
    };
    // With workers, Dask's target does not count it: a target above them is plain work's.
    expect(resourceStep(input({ ...tpu, decision: { status: 'up', n: 4 } })).add).toEqual([{ host: 'cpu', count: 1 }]);
    // At 0 workers, its "at least 1" comes off.
    const none = { workers: [], hosts: [{ name: 'cpu', resources: {}, maxWorkers: 2, workers: 0, nthreads: 2 }] };
    expect(resourceStep(input({ ...tpu, ...none, decision: { status: 'up', n: 1 } })).add).toEqual([]);
  });
});
