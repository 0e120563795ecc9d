// The policy stepped by hand: no timers, no scheduler — each step is one interval.
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

const GiB = 1024 ** 3;
const NEW = '2023.8.0';
const OLD = '2022.12.1';
const spec = (over: Partial<AdaptiveSpec> = {}): AdaptiveSpec => ({
  minimum: 0,
  maximum: 10,
  intervalMs: 1000,
  waitCount: 3,
  targetDurationMs: 5000,
  ...over,
});

type State = 'registered' | 'starting' | 'planned';
const w = (name: string, state: State = 'registered', over: Partial<AdaptiveWorker> = {}): AdaptiveWorker => ({
  name,
  registered: state === 'registered',
  starting: state === 'starting',
  nthreads: 2,
  memoryBytes: 8 * GiB,
  ...over,
});
const reg = (...names: string[]) => names.map((n) => w(n));

function input(rawTarget: number, workers: AdaptiveWorker[], over: Partial<AdaptiveInput> = {}): AdaptiveInput {
  return { now: 0, rawTarget, daskVersion: NEW, workers, newWorker: { nthreads: 2, memoryBytes: 8 * GiB }, ...over };
}

/** Steps the same spec through inputs, threading the state; returns every result. */
function run(s: AdaptiveSpec, inputs: AdaptiveInput[], state: AdaptiveState = initialAdaptiveState): StepResult[] {
  const out: StepResult[] = [];
  for (const [i, inp] of inputs.entries()) {
    const r = step(state, { ...inp, now: i * 1000 }, s);
    out.push(r);
    state = r.state;
  }
  return out;
}

describe('step: up', () => {
  it('starts workers up to the target', () => {
    const r = step(initialAdaptiveState, input(5, reg('a', 'b')), spec());
    expect(r.decision).toEqual({ status: 'up', n: 5 });
    expect(r.log).toMatchObject({ time: 0, target: 5, current: 2, decision: 'up', rawTarget: 5 });
  });
  it('never counts a starting (or not yet launched) worker as missing', () => {
    expect(
      step(initialAdaptiveState, input(3, [w('a'), w('b', 'starting'), w('c', 'planned')]), spec()).decision,
    ).toEqual({ status: 'same', reason: 'at target' });
    expect(step(initialAdaptiveState, input(4, [w('a'), w('b', 'starting')]), spec()).decision).toEqual({
      status: 'up',
      n: 4,
    });
  });
  it('clips to the maximum and says so once it is reached', () => {
    const up = step(initialAdaptiveState, input(50, reg('a', 'b')), spec({ maximum: 4 }));
    expect(up.decision).toEqual({ status: 'up', n: 4 });
    expect(up.log.reason).toBe('start 2: target 4 > 2, clipped to maximum (4 workers)');
    const at = step(initialAdaptiveState, input(50, reg('a', 'b', 'c', 'd')), spec({ maximum: 4 }));
    expect(at.decision).toEqual({ status: 'same', reason: 'maximum reached (4 workers)' });
  });
  it("clips to maximum_cores converted with the new workers' threads: 2 threads, maximum_cores 5 → 2 workers", () => {
    expect(step(initialAdaptiveState, input(10, reg('a')), spec({ maximumCores: 5 })).decision).toEqual({
      status: 'up',
      n: 2,
    });
  });
  it("raises to minimum_memory converted with the new workers' memory", () => {
    // 20 GiB over 8 GiB workers → 3 workers, however idle the scheduler says it is.
    expect(step(initialAdaptiveState, input(0, []), spec({ minimumMemory: 20 * GiB })).decision).toEqual({
      status: 'up',
      n: 3,
    });
  });
  it('corrects an old scheduler that counts threads: 2022.12.1, 4-thread workers, raw 16 → 4 workers', () => {
    const four = ['a', 'b'].map((n) => w(n, 'registered', { nthreads: 4 }));
    const newWorker = { nthreads: 4, memoryBytes: 8 * GiB };
    expect(step(initialAdaptiveState, input(8, four, { daskVersion: OLD, newWorker }), spec()).decision).toEqual({
      status: 'same',
      reason: 'at target',
    });
    expect(step(initialAdaptiveState, input(16, four, { daskVersion: OLD, newWorker }), spec()).decision).toEqual({
      status: 'up',
      n: 4,
    });
    expect(step(initialAdaptiveState, input(8, four, { daskVersion: NEW, newWorker }), spec()).decision).toEqual({
      status: 'up',
      n: 8,
    });
  });
});

describe('step: none', () => {
  it('says "minimum reached" when the scheduler wants fewer than the minimum', () => {
    const r = step(initialAdaptiveState, input(0, reg('a', 'b')), spec({ minimum: 2 }));
    expect(r.decision.status).toBe('same');
    expect(r.log.reason).toMatch(/^minimum reached/);
    expect(r.decision).toEqual({ status: 'same', reason: 'minimum reached (2 workers)' });
  });
  it('names a cores minimum as the reason', () => {
    expect(step(initialAdaptiveState, input(0, reg('a', 'b', 'c')), spec({ minimumCores: 6 })).decision).toEqual({
      status: 'same',
      reason: 'minimum reached: minimum_cores 6 (3 workers)',
    });
  });
});

describe('step: down with wait_count', () => {
  it('waits wait_count (3) consecutive recommendations: none "waiting 1/3", "waiting 2/3", then retire', () => {
    const inp = input(2, reg('a', 'b', 'c', 'd'), { schedulerRecommends: ['d', 'c'] });
    const [r1, r2, r3] = run(spec(), [inp, inp, inp]);
    expect(r1!.decision).toEqual({ status: 'same', reason: 'waiting 1/3 to retire d, c' });
    expect(r2!.decision).toEqual({ status: 'same', reason: 'waiting 2/3 to retire d, c' });
    expect(r3!.decision).toEqual({ status: 'down', workers: ['d', 'c'] });
    expect(r3!.log).toMatchObject({ decision: 'down', target: 2, current: 4, reason: 'retire d, c' });
    expect(r3!.state.closeCounts.size).toBe(0);
  });
  it('retires at once with wait_count 1', () => {
    expect(
      step(initialAdaptiveState, input(1, reg('a', 'b'), { schedulerRecommends: ['b'] }), spec({ waitCount: 1 }))
        .decision,
    ).toEqual({ status: 'down', workers: ['b'] });
  });
  it('drops workers not yet arrived before registered ones', () => {
    const plan = [w('a'), w('b'), w('c'), w('s', 'starting')];
    const inp = input(3, plan, { schedulerRecommends: ['c'] });
    const results = run(spec(), [inp, inp, inp]);
    expect(results.map((r) => r.decision.status)).toEqual(['same', 'same', 'down']);
    expect(results[2]!.decision).toEqual({ status: 'down', workers: ['s'] });
    expect(results[2]!.log.reason).toBe('retire s (not arrived)');
  });
  it("takes not launched, then starting, then the scheduler's choice", () => {
    const plan = [w('a'), w('b'), w('s', 'starting'), w('p', 'planned')];
    const inp = input(1, plan, { schedulerRecommends: ['b', 'a'] });
    const r = run(spec({ waitCount: 1 }), [inp]);
    expect(r[0]!.decision).toEqual({ status: 'down', workers: ['p', 's', 'b'] });
  });
  it('does not ask the scheduler when not-yet-arrived workers are enough', () => {
    const inp = input(2, [w('a'), w('b'), w('s', 'starting')], { schedulerRecommends: ['a'] });
    expect(run(spec({ waitCount: 1 }), [inp])[0]!.decision).toEqual({ status: 'down', workers: ['s'] });
  });
  it('never retires anything on flapping input (down, down, up, down, down, same, down, down)', () => {
    const four = reg('a', 'b', 'c', 'd');
    const down = input(2, four, { schedulerRecommends: ['d', 'c'] });
    const seq = [down, down, input(6, four), down, down, input(4, four), down, down];
    const results = run(spec(), seq);
    expect(results.map((r) => r.decision.status)).toEqual([
      'same',
      'same',
      'up',
      'same',
      'same',
      'same',
      'same',
      'same',
    ]);
    expect(results.every((r) => r.decision.status !== 'down')).toBe(true);
    expect(results.at(-1)!.log.reason).toBe('waiting 2/3 to retire d, c');
  });
  it('forgets a worker the scheduler stops recommending (counts are per worker, consecutive)', () => {
    const four = reg('a', 'b', 'c', 'd');
    const seq = [
      input(3, four, { schedulerRecommends: ['d'] }),
      input(3, four, { schedulerRecommends: ['d'] }),
      input(3, four, { schedulerRecommends: ['c'] }),
      input(3, four, { schedulerRecommends: ['d'] }),
    ];
    const results = run(spec(), seq);
    expect(results.map((r) => r.decision)).toEqual([
      { status: 'same', reason: 'waiting 1/3 to retire d' },
      { status: 'same', reason: 'waiting 2/3 to retire d' },
      { status: 'same', reason: 'waiting 1/3 to retire c' },
      { status: 'same', reason: 'waiting 1/3 to retire d' },
    ]);
  });
  it('retires the firm ones and keeps counting a worker that joined later', () => {
    const four = reg('a', 'b', 'c', 'd');
    const seq = [
      input(3, four, { schedulerRecommends: ['d'] }),
      input(3, four, { schedulerRecommends: ['d'] }),
      input(2, four, { schedulerRecommends: ['d', 'c'] }),
    ];
    const last = run(spec(), seq)[2]!;
    expect(last.decision).toEqual({ status: 'down', workers: ['d'] });
    expect(last.log.reason).toBe('retire d; waiting 1/3 to retire c');
    expect([...last.state.closeCounts]).toEqual([['c', 1]]);
  });
  it('does not mutate the state it was given', () => {
    const s0 = initialAdaptiveState;
    const r = step(s0, input(1, reg('a', 'b'), { schedulerRecommends: ['b'] }), spec());
    expect(s0.closeCounts.size).toBe(0);
    expect(r.state.closeCounts.get('b')).toBe(1);
  });
  it('takes no more than needed from a long recommendation list, and ignores unknown or duplicate names', () => {
    const inp = input(2, reg('a', 'b', 'c', 'd'), { schedulerRecommends: ['x', 'd', 'd', 'c', 'b'] });
    expect(run(spec({ waitCount: 1 }), [inp])[0]!.decision).toEqual({ status: 'down', workers: ['d', 'c'] });
  });
  it('falls back to idle registered workers from the end of the plan without recommendations', () => {
    expect(run(spec({ waitCount: 1 }), [input(2, reg('a', 'b', 'c', 'd'))])[0]!.decision).toEqual({
      status: 'down',
      workers: ['d', 'c'],
    });
  });
});

describe('step: why it did not scale down', () => {
  it('skips a busy worker and says so', () => {
    const plan = [w('a'), w('b', 'registered', { busy: true }), w('c')];
    const inp = input(1, plan, { schedulerRecommends: ['b', 'c'] });
    const [r1, , r3] = run(spec(), [inp, inp, inp]);
    expect(r1!.decision).toEqual({ status: 'same', reason: 'waiting 1/3 to retire c; worker busy: b' });
    expect(r3!.decision).toEqual({ status: 'down', workers: ['c'] });
    expect(r3!.log.reason).toBe('retire c; worker busy: b');
  });
  it('reports "worker busy" when every candidate is busy, and counts nothing', () => {
    const plan = [w('a', 'registered', { busy: true }), w('b', 'registered', { busy: true })];
    const r = step(initialAdaptiveState, input(1, plan), spec());
    expect(r.decision).toEqual({ status: 'same', reason: 'worker busy: a, b' });
    expect(r.state.closeCounts.size).toBe(0);
  });
  it('brings a plan above the maximum down even when every worker is busy (after wait_count)', () => {
    const plan = [
      w('a', 'registered', { busy: true }),
      w('b', 'registered', { busy: true }),
      w('c', 'registered', { busy: true }),
    ];
    const inp = input(9, plan, { schedulerRecommends: ['c', 'b', 'a'] });
    const [r1, r2, r3] = run(spec({ maximum: 1 }), [inp, inp, inp]);
    expect(r1!.decision).toEqual({
      status: 'same',
      reason: 'waiting 1/3 to retire c, b; clipped to maximum (1 worker)',
    });
    expect(r2!.decision.status).toBe('same');
    expect(r3!.decision).toEqual({ status: 'down', workers: ['c', 'b'] });
  });
  it('reports when the scheduler recommends fewer workers than the target asks for', () => {
    const r = step(initialAdaptiveState, input(0, reg('a', 'b'), { schedulerRecommends: [] }), spec());
    expect(r.decision).toEqual({ status: 'same', reason: 'scheduler recommends 0 of 2 to close' });
  });
  it('logs the bound that forced a scale-down', () => {
    const r = step(
      initialAdaptiveState,
      input(9, reg('a', 'b', 'c'), { schedulerRecommends: ['c'] }),
      spec({ maximumCores: 4 }),
    );
    expect(r.log).toMatchObject({
      target: 2,
      current: 3,
      rawTarget: 9,
      reason: 'waiting 1/3 to retire c; clipped to maximum_cores 4 (2 workers)',
    });
  });
});
