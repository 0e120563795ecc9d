import { describe, expect, it } from 'vitest';
import type { AdaptiveSpec } from '../../../src/config/spec.js';
import {
  clipTarget,
  correctedTarget,
  countsThreads,
  countsUnrunnable,
  parseDaskVersion,
  typicalNthreads,
  workerBounds,
} from '../../../src/adaptive/target.js';

const GiB = 1024 ** 3;
const spec = (over: Partial<AdaptiveSpec> = {}): AdaptiveSpec => ({
  minimum: 0,
  maximum: 10,
  intervalMs: 1000,
  waitCount: 3,
  targetDurationMs: 5000,
  ...over,
});
const ctx = (daskVersion: string, workerNthreads: number[], defaultNthreads = 4) => ({
  daskVersion,
  workerNthreads,
  defaultNthreads,
});

describe('dask versions', () => {
  it('parses release, Debian and four-part versions', () => {
    expect(parseDaskVersion('2022.12.1')).toEqual([2022, 12, 1]);
    expect(parseDaskVersion('2022.12.1+ds.1')).toEqual([2022, 12, 1]);
    expect(parseDaskVersion('2023.3.2.1')).toEqual([2023, 3, 2]);
    expect(parseDaskVersion('2024.1')).toEqual([2024, 1, 0]);
    expect(parseDaskVersion('unknown')).toBeUndefined();
  });
  it('knows which schedulers count threads (the fix, dask/distributed#8041, is in 2023.8.0)', () => {
    expect(countsThreads('2022.12.1')).toBe(true);
    expect(countsThreads('2022.12.1+ds.1')).toBe(true);
    expect(countsThreads('2023.7.0')).toBe(true);
    expect(countsThreads('2023.7.1')).toBe(true);
    expect(countsThreads('2023.8.0')).toBe(false);
    expect(countsThreads('2024.12.1')).toBe(false);
    expect(countsThreads('')).toBe(false);
  });
  it('knows which schedulers count unrunnable tasks (dask/distributed#8037, also in 2023.8.0); one it cannot read is taken as current', () => {
    expect(['2022.12.1+ds.1', '2023.7.1', '2023.8.0', '2024.12.1', ''].map(countsUnrunnable)).toEqual([
      false,
      false,
      true,
      true,
      true,
    ]);
  });
});

describe('correctedTarget', () => {
  it("turns an old scheduler's threads into workers: 2022.12.1, 4-thread workers, raw 8 → 2", () => {
    expect(correctedTarget(8, ctx('2022.12.1', [4, 4]))).toBe(2);
    expect(correctedTarget(8, ctx('2022.12.1+ds.1', [4, 4]))).toBe(2);
  });
  it('rounds up: raw 9 on 4-thread workers → 3', () => {
    expect(correctedTarget(9, ctx('2022.12.1', [4, 4]))).toBe(3);
  });
  it('trusts a scheduler that already counts workers: 2023.8.0 raw 8 → 8', () => {
    expect(correctedTarget(8, ctx('2023.8.0', [4, 4]))).toBe(8);
  });
  it('still corrects 2023.7.0 and 2023.7.1, which predate the fix', () => {
    expect(correctedTarget(8, ctx('2023.7.0', [4, 4]))).toBe(2);
    expect(correctedTarget(8, ctx('2023.7.1', [4, 4]))).toBe(2);
  });
  it('divides by the mean nthreads of the current workers (as the fixed scheduler does)', () => {
    expect(typicalNthreads({ workerNthreads: [2, 4], defaultNthreads: 8 })).toBe(3);
    expect(correctedTarget(9, ctx('2022.12.1', [2, 4], 8))).toBe(3);
  });
  it("uses the new workers' nthreads when there are no workers yet", () => {
    expect(typicalNthreads({ workerNthreads: [], defaultNthreads: 4 })).toBe(4);
    expect(correctedTarget(8, ctx('2022.12.1', [], 4))).toBe(2);
    expect(correctedTarget(1, ctx('2022.12.1', [], 4))).toBe(1);
  });
  it('never divides by less than one thread', () => {
    expect(typicalNthreads({ workerNthreads: [], defaultNthreads: 0 })).toBe(1);
    expect(correctedTarget(5, ctx('2022.12.1', [], 0))).toBe(5);
  });
  it('leaves the scale-down branch alone: a raw target below the worker count is already workers', () => {
    expect(correctedTarget(3, ctx('2022.12.1', [4, 4, 4, 4]))).toBe(3);
    expect(correctedTarget(0, ctx('2022.12.1', [4, 4, 4, 4]))).toBe(0);
  });
  it('leaves a possible memory-pressure answer (2 × workers) alone', () => {
    expect(correctedTarget(8, ctx('2022.12.1', [4, 4, 4, 4]))).toBe(8);
    expect(correctedTarget(12, ctx('2022.12.1', [4, 4, 4, 4]))).toBe(3);
  });
  it('never returns a negative or fractional target', () => {
    expect(correctedTarget(-3, ctx('2023.8.0', []))).toBe(0);
    expect(correctedTarget(2.2, ctx('2023.8.0', []))).toBe(3);
  });
});

describe('clipTarget', () => {
  const w = { nthreads: 2, memoryBytes: 16 * GiB };
  it('clips to [minimum, maximum]', () => {
    expect(clipTarget(50, spec({ minimum: 1, maximum: 4 }), w)).toEqual({
      target: 4,
      bound: 'maximum',
      reason: 'maximum (4 workers)',
    });
    expect(clipTarget(0, spec({ minimum: 1, maximum: 4 }), w)).toEqual({
      target: 1,
      bound: 'minimum',
      reason: 'minimum (1 worker)',
    });
    expect(clipTarget(3, spec({ minimum: 1, maximum: 4 }), w)).toEqual({ target: 3 });
  });
  it('allows an infinite maximum', () => {
    expect(clipTarget(500, spec({ maximum: Infinity }), w)).toEqual({ target: 500 });
  });
  it('converts cores bounds with the threads per worker: 2-thread workers, maximum_cores 5 → 2 workers', () => {
    expect(workerBounds(spec({ maximumCores: 5 }), w)).toMatchObject({ maximum: 2, maximumFrom: 'maximum_cores 5' });
    expect(clipTarget(10, spec({ maximumCores: 5 }), w)).toEqual({
      target: 2,
      bound: 'maximum',
      reason: 'maximum_cores 5 (2 workers)',
    });
  });
  it('rounds minimum_cores up: 5 cores on 2-thread workers → 3 workers', () => {
    expect(clipTarget(0, spec({ minimumCores: 5 }), w)).toMatchObject({ target: 3, bound: 'minimum' });
  });
  it('converts memory bounds with the memory per worker', () => {
    const s = spec({ minimumMemory: 40 * GiB, maximumMemory: 100 * GiB });
    expect(workerBounds(s, w)).toMatchObject({ minimum: 3, maximum: 6 });
    expect(clipTarget(20, s, w)).toMatchObject({ target: 6, reason: 'maximum_memory 100G (6 workers)' });
    expect(clipTarget(0, s, w)).toMatchObject({ target: 3, bound: 'minimum' });
  });
  it('takes the tightest of all bounds', () => {
    const s = spec({ minimum: 1, maximum: 8, maximumCores: 12, maximumMemory: 64 * GiB });
    expect(workerBounds(s, w)).toMatchObject({ minimum: 1, maximum: 4, maximumFrom: 'maximum_memory 64G' });
  });
  it('lets the minimum win over a smaller maximum, like AdaptiveCore.safe_target', () => {
    expect(clipTarget(10, spec({ maximum: 3, minimumCores: 8 }), w)).toMatchObject({ target: 4, bound: 'minimum' });
  });
  it('skips memory bounds for workers without a memory limit', () => {
    expect(clipTarget(10, spec({ maximumMemory: GiB }), { nthreads: 2, memoryBytes: 0 })).toEqual({ target: 10 });
  });
});
