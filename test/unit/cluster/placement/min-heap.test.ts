// The heap placement uses: the same order a sort gives, whatever the pushes and pops.
import { describe, expect, it } from 'vitest';
import { MinHeap } from '../../../../src/cluster/placement/min-heap.js';

describe('MinHeap', () => {
  it('pops in sorted order, ties and interleaved pushes included', () => {
    let seed = 7;
    const rand = () => (seed = (seed * 48271) % 2147483647) % 50;
    const heap = new MinHeap<number>((a, b) => a - b);
    const shadow: number[] = [];
    const out: number[] = [];
    const want: number[] = [];
    for (let i = 0; i < 500; i++) {
      const x = rand();
      heap.push(x);
      shadow.push(x);
      if (i % 3 === 0) {
        shadow.sort((a, b) => a - b);
        want.push(shadow.shift()!);
        out.push(heap.pop()!);
      }
    }
    while (shadow.length) {
      shadow.sort((a, b) => a - b);
      want.push(shadow.shift()!);
      out.push(heap.pop()!);
    }
    expect(out).toEqual(want);
    expect(heap.pop()).toBeUndefined();
  });
});
