// Waiting on the injected clock: `within` gives up its timer and its abort listener as
// soon as what it waits for settles, so thousands of retirements hold none of either.
import { describe, expect, it } from 'vitest';
import { within } from '../../../src/cluster/clock.js';
import { FakeClock } from './fakes.js';
import { flush, harness, startUp } from './harness.js';

/** The timers a FakeClock still holds. */
const pending = (c: FakeClock) => (c as unknown as { timers: unknown[] }).timers.length;

describe('within', () => {
  it('settles with the promise and leaves no timer behind', async () => {
    const clock = new FakeClock();
    const life = new AbortController();
    const r = await within(clock, 60_000, life.signal, Promise.resolve('retired'));
    expect(r).toBe('retired');
    expect(pending(clock)).toBe(0);
  });

  it('gives undefined once the time is up, or at once when the signal is aborted', async () => {
    const clock = new FakeClock();
    const never = new Promise<string>(() => {});
    const late = within(clock, 1000, undefined, never);
    await clock.advance(1000);
    expect(await late).toBeUndefined();
    const life = new AbortController();
    const cut = within(clock, 60_000, life.signal, never);
    life.abort();
    expect(await cut).toBeUndefined();
    expect(pending(clock)).toBe(0);
  });

  it('holds no listener on the cluster signal after a thousand waits (a scale-down of a thousand workers)', async () => {
    const clock = new FakeClock();
    const life = new AbortController();
    let added = 0;
    let removed = 0;
    const add = life.signal.addEventListener.bind(life.signal);
    const remove = life.signal.removeEventListener.bind(life.signal);
    life.signal.addEventListener = ((...a: Parameters<typeof add>) => (added++, add(...a))) as typeof add;
    life.signal.removeEventListener = ((...a: Parameters<typeof remove>) => (removed++, remove(...a))) as typeof remove;
    for (let i = 0; i < 1000; i++) await within(clock, 60_000, life.signal, Promise.resolve(i));
    expect(added - removed).toBe(0);
    expect(pending(clock)).toBe(0);
  });
});

describe('a retirement the scheduler answers', () => {
  it('keeps no retire timeout running once the worker is retired (it did for the whole 60 s, one per worker)', async () => {
    const h = harness({ workers: ['a', 'b', 'c'] });
    await startUp(h);
    const before = pending(h.clock);
    await h.reconciler.retire(['a-0', 'b-0']);
    await flush();
    expect(h.host('a').running('a-0')).toHaveLength(0);
    expect(pending(h.clock)).toBe(before);
  });
});
