// placeByResource stepped by hand: each case names the rule it pins, and fails if that
// rule is reverted (noted where it is not obvious).
import { describe, expect, it } from 'vitest';
import type { WantedGroup } from '../../../../src/cluster/placement/demand.js';
import {
  placeByResource,
  type ResourceHost,
  type ResourcePlacementInput,
} from '../../../../src/adaptive/resources/resource-placement.js';

const host = (
  name: string,
  maxWorkers: number,
  resources: Record<string, number> = {},
  more: Partial<ResourceHost> = {},
): ResourceHost => ({ name, resources, maxWorkers, workers: 0, ...more });
const gpu = (workers: number, tasks = 10): WantedGroup => ({ resources: { GPU: 1 }, workers, tasks });
const place = (i: Partial<ResourcePlacementInput> & { hosts: ResourceHost[] }) =>
  placeByResource({ target: 0, wanted: [], maximum: 100, ...i });

// The acceptance layout: three CPU hosts, the last one declares GPU=2.
const lab = () => [host('c1', 1), host('c2', 1), host('c3', 1), host('gpu', 1, { GPU: 2 })];

describe('placeByResource: restricted demand', () => {
  it('adaptive 0..1 with 10 GPU tasks: the one worker goes to the GPU host, not the first CPU host', () => {
    // Dask's target is 1 (unrunnable work, no workers). Reverting "restricted first"
    // puts it on c1 and leaves the GPU work unmet; reverting "only on hosts that
    // satisfy" puts the GPU worker on c1.
    const p = place({ hosts: lab(), target: 1, maximum: 1, wanted: [gpu(1)] });
    expect(p).toEqual({ add: [{ host: 'gpu', count: 1 }], total: 1, unmet: [] });
  });

  it('counts workers already able to run the set, and adds only the difference', () => {
    const hosts = [host('c1', 2), host('g1', 2, { GPU: 1 }, { workers: 1 }), host('g2', 2, { GPU: 1 })];
    expect(place({ hosts, target: 1, wanted: [gpu(1)] }).add).toEqual([]);
    expect(place({ hosts, target: 1, wanted: [gpu(3)] }).add).toEqual([
      { host: 'g2', count: 1 },
      { host: 'g1', count: 1 },
    ]);
  });

  it('a worker added for restricted work also serves plain work: mixed load 0..4 ends at 4, GPU host used once', () => {
    const p = place({ hosts: lab(), target: 4, maximum: 10, wanted: [gpu(1)] });
    expect(p.add).toEqual([
      { host: 'gpu', count: 1 },
      { host: 'c1', count: 1 },
      { host: 'c2', count: 1 },
      { host: 'c3', count: 1 },
    ]);
    expect(p.total).toBe(4);
  });

  it('places the set with the fewest able hosts first, so a worker there can serve both', () => {
    // Cluster maximum 1. Taken in the order given, GPU would go to g1 (first host) and
    // GPU+MEM could not be placed at all.
    const hosts = [host('g1', 1, { GPU: 1 }), host('big', 1, { GPU: 1, MEM: 100 })];
    const wanted = [gpu(1), { resources: { GPU: 1, MEM: 100 }, workers: 1, tasks: 2 }];
    expect(place({ hosts, maximum: 1, wanted })).toEqual({ add: [{ host: 'big', count: 1 }], total: 1, unmet: [] });
  });

  it('respects a group maximum and says so', () => {
    const hosts = [host('gpu1', 2, { GPU: 1 }), host('gpu2', 2, { GPU: 1 })];
    const p = place({
      hosts,
      wanted: [gpu(3)],
      groups: [{ name: 'gpu', hosts: ['gpu1', 'gpu2'], minimum: 0, maximum: 1 }],
    });
    expect(p.add).toEqual([{ host: 'gpu1', count: 1 }]);
    expect(p.unmet.map((u) => u.line)).toEqual(['want 3 GPU workers, 1 placeable: group gpu maximum 1']);
  });

  it('respects the cluster maximum for restricted demand too', () => {
    const hosts = [host('c1', 1, {}, { workers: 1 }), host('gpu', 2, { GPU: 1 })];
    const p = place({ hosts, maximum: 2, target: 1, wanted: [gpu(2)] });
    expect(p.add).toEqual([{ host: 'gpu', count: 1 }]);
    expect(p.unmet.map((u) => u.line)).toEqual(['want 2 GPU workers, 1 placeable: maximum 2']);
  });
});

describe('placeByResource: plain demand', () => {
  it('goes to hosts without resources first, even when a GPU host comes first and is emptiest', () => {
    const hosts = [host('gpu', 2, { GPU: 2 }), host('c1', 2, {}, { workers: 1 }), host('c2', 2, {}, { workers: 1 })];
    expect(place({ hosts, target: 4 }).add).toEqual([
      { host: 'c1', count: 1 },
      { host: 'c2', count: 1 },
    ]);
  });

  it('spills onto resource hosts only when plain hosts are full, those no pending work needs first', () => {
    const hosts = [
      host('gpu', 1, { GPU: 1 }, { workers: 1 }),
      host('gpu2', 1, { GPU: 1 }),
      host('big', 1, { MEM: 100 }),
      host('c1', 1),
    ];
    // GPU work is pending (and already has its worker): big is spent before gpu2.
    expect(place({ hosts, target: 3, wanted: [gpu(1)] }).add).toEqual([
      { host: 'c1', count: 1 },
      { host: 'big', count: 1 },
    ]);
    // Without pending GPU work, big and gpu2 are alike after c1: host order decides.
    expect(place({ hosts, target: 3, wanted: [] }).add).toEqual([
      { host: 'c1', count: 1 },
      { host: 'gpu2', count: 1 },
    ]);
  });

  it('never places on a host that cannot take work now', () => {
    const hosts = [host('c1', 1, {}, { unavailable: 'never connected' }), host('c2', 1)];
    const p = place({ hosts, target: 2 });
    expect(p.add).toEqual([{ host: 'c2', count: 1 }]);
    expect(p.unmet.map((u) => u.line)).toEqual(['target 2, 1 placeable (c1 never connected; c2: 1 slot)']);
  });

  it('fills a group minimum without demand', () => {
    const hosts = [host('c1', 2), host('gpu1', 1, { GPU: 1 })];
    const p = place({ hosts, groups: [{ name: 'gpu', hosts: ['gpu1'], minimum: 1, maximum: 1 }] });
    expect(p).toEqual({ add: [{ host: 'gpu1', count: 1 }], total: 1, unmet: [] });
  });
});

describe('placeByResource: unmet demand in one line', () => {
  it('GPU host down: want 3 GPU workers, 1 placeable: gpu2 unreachable', () => {
    const hosts = [
      host('c1', 4),
      host('gpu1', 1, { GPU: 1 }),
      host('gpu2', 2, { GPU: 1 }, { unavailable: 'unreachable' }),
    ];
    const p = place({ hosts, wanted: [gpu(3)] });
    expect(p.add).toEqual([{ host: 'gpu1', count: 1 }]);
    expect(p.unmet).toEqual([
      {
        what: 'GPU',
        want: 3,
        placeable: 1,
        reasons: ['gpu2 unreachable', 'gpu1: 1 slot'],
        line: 'want 3 GPU workers, 1 placeable: gpu2 unreachable; gpu1: 1 slot',
      },
    ]);
  });

  it('local 2-core machine, adapt --max 4: target 4, 2 placeable (local: 2 slots)', () => {
    const p = place({ hosts: [host('local', 2)], target: 4, maximum: 4 });
    expect(p.total).toBe(2);
    expect(p.unmet.map((u) => u.line)).toEqual(['target 4, 2 placeable (local: 2 slots)']);
  });

  it('no host declares the resource, or none declares enough; nothing is started for it', () => {
    const none = place({ hosts: lab().slice(0, 3), wanted: [gpu(1)] });
    expect(none.add).toEqual([]);
    expect(none.unmet.map((u) => u.line)).toEqual(['want 1 GPU worker, 0 placeable: no host declares GPU']);
    const small = place({ hosts: lab(), wanted: [{ resources: { GPU: 4 }, workers: 1, tasks: 1 }] });
    expect(small.add).toEqual([]);
    expect(small.unmet.map((u) => u.line)).toEqual([
      'want 1 GPU=4 worker, 0 placeable: no host has GPU=4 (gpu: GPU=2)',
    ]);
  });

  it('folds many full hosts into a count', () => {
    const hosts = ['n1', 'n2', 'n3', 'n4'].map((n) => host(n, 2, {}, { workers: 2 }));
    expect(place({ hosts, target: 10 }).unmet[0]!.line).toBe('target 10, 8 placeable (8 slots on 4 hosts)');
  });
});
