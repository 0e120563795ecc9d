import { describe, expect, it } from 'vitest';
import { protectResources, type ScaleDownInput } from '../../../../src/adaptive/resources/protect-resources.js';

const hosts: ScaleDownInput['hosts'] = [
  { name: 'c1', resources: {} },
  { name: 'c2', resources: {} },
  { name: 'gpu', resources: { GPU: 2 } },
];
const workers = [
  { name: 'c1-0', host: 'c1' },
  { name: 'c2-0', host: 'c2' },
  { name: 'gpu-0', host: 'gpu' },
  { name: 'gpu-1', host: 'gpu' },
];
const input = (over: Partial<ScaleDownInput>): ScaleDownInput => ({
  candidates: [],
  workers,
  hosts,
  wanted: [],
  ...over,
});
const pendingGpu = [{ resources: { GPU: 1 }, workers: 1, tasks: 3 }];

describe('protectResources', () => {
  it("keeps Dask's order when no restricted work is pending", () => {
    const r = protectResources(input({ candidates: ['gpu-1', 'c2-0', 'gpu-0', 'c1-0'] }));
    expect(r).toEqual({ retire: ['gpu-1', 'c2-0', 'gpu-0', 'c1-0'], kept: [] });
  });

  it('never retires the last worker able to run pending restricted work', () => {
    const r = protectResources(input({ candidates: ['gpu-1', 'c2-0', 'gpu-0'], wanted: pendingGpu }));
    expect(r.retire).toEqual(['gpu-1', 'c2-0']);
    expect(r.kept).toEqual([{ name: 'gpu-0', reason: 'last worker able to run GPU (3 tasks pending)' }]);
  });

  it('counts only workers in the plan: with one GPU worker, that one stays', () => {
    const r = protectResources(
      input({ candidates: ['gpu-0', 'c1-0'], workers: workers.filter((w) => w.name !== 'gpu-1'), wanted: pendingGpu }),
    );
    expect(r.retire).toEqual(['c1-0']);
  });

  it('lets the last able worker go once the work is done', () => {
    const done = [{ resources: { GPU: 1 }, workers: 0, tasks: 0 }];
    expect(protectResources(input({ candidates: ['gpu-0', 'gpu-1'], wanted: done })).retire).toEqual([
      'gpu-0',
      'gpu-1',
    ]);
  });

  it('keeps a group at its minimum', () => {
    const groups = [{ name: 'cpu', hosts: ['c1', 'c2'], minimum: 1, maximum: 4 }];
    const r = protectResources(input({ candidates: ['c2-0', 'c1-0', 'gpu-0'], groups }));
    expect(r).toEqual({ retire: ['c2-0', 'gpu-0'], kept: [{ name: 'c1-0', reason: 'group cpu minimum 1' }] });
  });
});
