// A binary heap for placement: the next host to fill (or empty) in log time, where a
// sort of every host per worker grows with hosts × workers.

/** A binary heap: the least by `cmp` first. */
export class MinHeap<T> {
  private readonly items: T[] = [];
  constructor(private readonly cmp: (a: T, b: T) => number) {}

  push(x: T): void {
    const a = this.items;
    a.push(x);
    for (let i = a.length - 1; i > 0;) {
      const up = (i - 1) >> 1;
      if (this.cmp(a[i]!, a[up]!) >= 0) break;
      swap(a, i, up);
      i = up;
    }
  }

  pop(): T | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length === 0 || last === undefined) return top;
    a[0] = last;
    for (let i = 0; ;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < a.length && this.cmp(a[l]!, a[m]!) < 0) m = l;
      if (r < a.length && this.cmp(a[r]!, a[m]!) < 0) m = r;
      if (m === i) break;
      swap(a, i, m);
      i = m;
    }
    return top;
  }
}

/** In place, with no array made per swap (a wave at 10,000 hosts makes millions of them). */
function swap<T>(a: T[], i: number, j: number): void {
  const x = a[i]!;
  a[i] = a[j]!;
  a[j] = x;
}
