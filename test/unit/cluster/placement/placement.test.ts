import { describe, expect, it } from 'vitest';
import {
  explainShortfall,
  placeWorkers,
  type PlacedWorker,
  type PlacementHost,
} from '../../../../src/cluster/placement/placement.js';

const h = (name: string, maxWorkers: number, healthy = true): PlacementHost => ({ name, maxWorkers, healthy });
/** "a-0@a" style workers from short names: the host is the part before the last dash. */
const ws = (...names: string[]): PlacedWorker[] =>
  names.map((n) => ({ name: n, host: n.slice(0, n.lastIndexOf('-')) }));
const names = (w: PlacedWorker[]): string[] => w.map((x) => x.name);
const abc = [h('a', 2), h('b', 2), h('c', 2)];

describe('placeWorkers: growing', () => {
  it('scales 0 → 5 over max 2,2,2 spreading evenly in host order', () => {
    const p = placeWorkers(5, abc, []);
    expect(names(p.workers)).toEqual(['a-0', 'b-0', 'c-0', 'a-1', 'b-1']);
    expect(p.added).toEqual(p.workers);
    expect(p.removed).toEqual([]);
    expect(p.shortfall).toBe(0);
    expect(p.capacity).toBe(6);
    expect(p.healthySlots).toBe(6);
  });
  it('puts new workers on the host with the fewest first, not simply the first host', () => {
    const p = placeWorkers(5, abc, ws('a-0', 'a-1', 'b-0'));
    expect(names(p.workers)).toEqual(['a-0', 'a-1', 'b-0', 'c-0', 'b-1']);
    expect(names(p.added)).toEqual(['c-0', 'b-1']);
  });
  it('keeps existing names and fills the lowest free index', () => {
    const p = placeWorkers(3, [h('a', 3)], ws('a-2'));
    expect(names(p.workers)).toEqual(['a-2', 'a-0', 'a-1']);
  });
  it('does nothing when n equals the current count', () => {
    const p = placeWorkers(2, abc, ws('c-1', 'a-0'));
    expect(p).toEqual({
      workers: ws('c-1', 'a-0'),
      added: [],
      removed: [],
      shortfall: 0,
      capacity: 6,
      healthySlots: 6,
    });
  });
  it('places nothing new on an unhealthy host', () => {
    const p = placeWorkers(4, [h('a', 2), h('b', 2, false), h('c', 2)], []);
    expect(names(p.workers)).toEqual(['a-0', 'c-0', 'a-1', 'c-1']);
  });
  it('keeps workers on an unhealthy host and counts them towards n', () => {
    const hosts = [h('a', 2), h('b', 2, false), h('c', 2)];
    const p = placeWorkers(4, hosts, ws('b-0', 'b-1'));
    expect(names(p.workers)).toEqual(['b-0', 'b-1', 'a-0', 'c-0']);
    expect(p.capacity).toBe(6); // a 2 + c 2 healthy slots, b's 2 kept
    expect(p.healthySlots).toBe(4);
  });
  it('keeps workers on a host no longer listed, and places nothing there', () => {
    const p = placeWorkers(3, [h('a', 2)], ws('gone-0'));
    expect(names(p.workers)).toEqual(['gone-0', 'a-0', 'a-1']);
    expect(p.shortfall).toBe(0);
  });
  it('skips a host that is full and one with maxWorkers 0', () => {
    const p = placeWorkers(4, [h('a', 1), h('z', 0), h('b', 3)], ws('a-0'));
    expect(names(p.added)).toEqual(['b-0', 'b-1', 'b-2']);
  });
  it('leaves a host above its maxWorkers alone when growing', () => {
    const p = placeWorkers(4, [h('a', 1), h('b', 2)], ws('a-0', 'a-1', 'a-2'));
    expect(names(p.added)).toEqual(['b-0']);
    expect(p.capacity).toBe(5); // a keeps its 3, b has 2 slots
  });
  it('does not reuse a name another host holds', () => {
    const p = placeWorkers(2, [h('a', 2)], [{ name: 'a-0', host: 'b' }]);
    expect(p.added).toEqual([{ name: 'a-1', host: 'a' }]);
  });
  it('counts a duplicated current worker once', () => {
    const p = placeWorkers(2, [h('a', 2)], ws('a-0', 'a-0'));
    expect(names(p.workers)).toEqual(['a-0', 'a-1']);
  });
});

describe('placeWorkers: shrinking', () => {
  it('scales 5 → 3 removing from the fullest host, highest index, later host on ties', () => {
    const p = placeWorkers(3, abc, ws('a-0', 'b-0', 'c-0', 'a-1', 'b-1'));
    // a and b both have 2: b is later, loses b-1; then a (2) is the fullest, loses a-1.
    expect(names(p.removed)).toEqual(['b-1', 'a-1']);
    expect(names(p.workers)).toEqual(['a-0', 'b-0', 'c-0']);
    expect(p.shortfall).toBe(0);
  });
  it('removes the highest index on a host, not the last listed', () => {
    const p = placeWorkers(2, [h('a', 4)], ws('a-3', 'a-0', 'a-1'));
    expect(names(p.removed)).toEqual(['a-3']);
    expect(names(p.workers)).toEqual(['a-0', 'a-1']);
  });
  it('compares indices as numbers', () => {
    const p = placeWorkers(1, [h('a', 12)], ws('a-10', 'a-9'));
    expect(names(p.removed)).toEqual(['a-10']);
  });
  it('removes from unhealthy hosts first, even when a healthy host is fuller', () => {
    const hosts = [h('a', 3), h('b', 2, false)];
    const p = placeWorkers(2, hosts, ws('a-0', 'a-1', 'a-2', 'b-0', 'b-1'));
    expect(names(p.removed)).toEqual(['b-1', 'b-0', 'a-2']);
    expect(names(p.workers)).toEqual(['a-0', 'a-1']);
  });
  it('among unhealthy hosts removes from the fullest, then the later one on ties', () => {
    const hosts = [h('a', 2, false), h('b', 2, false), h('c', 2)];
    const p = placeWorkers(3, hosts, ws('a-0', 'a-1', 'b-0', 'b-1', 'c-0'));
    expect(names(p.removed)).toEqual(['b-1', 'a-1']);
  });
  it('treats an unlisted host as unhealthy and last in order when shrinking', () => {
    const p = placeWorkers(2, [h('a', 2), h('b', 1, false)], ws('a-0', 'b-0', 'gone-0'));
    expect(names(p.removed)).toEqual(['gone-0']);
  });
  it('removes odd-shaped names after indexed ones on their host', () => {
    const p = placeWorkers(
      1,
      [h('a', 2)],
      [
        { name: 'custom', host: 'a' },
        { name: 'a-1', host: 'a' },
      ],
    );
    expect(names(p.removed)).toEqual(['a-1']);
  });
  it('scales to 0', () => {
    const p = placeWorkers(0, abc, ws('a-0', 'c-0'));
    expect(names(p.removed)).toEqual(['c-0', 'a-0']);
    expect(p.workers).toEqual([]);
  });
});

describe('placeWorkers: shortfall', () => {
  it('places what fits and reports the rest', () => {
    const p = placeWorkers(12, [h('a', 4), h('b', 4), h('c', 1)], []);
    expect(p.workers).toHaveLength(9);
    expect(p.shortfall).toBe(3);
    expect(p.capacity).toBe(9);
    expect(explainShortfall(12, p, [h('a', 4), h('b', 4), h('c', 1)])).toBe(
      'asked for 12 workers, only 9 can be placed: 9 slots on healthy hosts',
    );
  });
  it('names the unhealthy hosts whose workers are kept', () => {
    const hosts = [h('a', 2), h('b', 2, false), h('c', 2, false)];
    const p = placeWorkers(6, hosts, ws('b-0', 'c-0', 'c-1'));
    expect(names(p.workers)).toEqual(['b-0', 'c-0', 'c-1', 'a-0', 'a-1']);
    expect(p.shortfall).toBe(1);
    expect(explainShortfall(6, p, hosts)).toBe(
      'asked for 6 workers, only 5 can be placed: 2 slots on healthy hosts, 3 kept on unhealthy hosts (b, c)',
    );
  });
  it('uses the singular for one', () => {
    const hosts = [h('a', 1)];
    expect(explainShortfall(2, placeWorkers(2, hosts, []), hosts)).toBe(
      'asked for 2 workers, only 1 can be placed: 1 slot on healthy hosts',
    );
  });
  it('says nothing when n fits', () => {
    expect(explainShortfall(2, placeWorkers(2, abc, []), abc)).toBeUndefined();
  });
  it('reports everything short when no host is healthy', () => {
    const hosts = [h('a', 2, false)];
    const p = placeWorkers(2, hosts, []);
    expect(p).toEqual({ workers: [], added: [], removed: [], shortfall: 2, capacity: 0, healthySlots: 0 });
  });
  it('rejects a negative or fractional n', () => {
    expect(() => placeWorkers(-1, abc, [])).toThrow(RangeError);
    expect(() => placeWorkers(1.5, abc, [])).toThrow('non-negative integer');
  });
});
