import { describe, expect, it } from 'vitest';
import {
  waitForScheduler,
  type ReadyResult,
  type ReadyWaitOptions,
} from '../../../../src/cluster/start-stop/readiness.js';
import type { SchedulerClient } from '../../../../src/dask/scheduler-client.js';
import { FakeClock, flush } from '../fakes.js';

/**
 * waitForScheduler on a fake clock, moved on one poll at a time until it answers (the
 * deadline and the poll interval are the clock's, so no real time passes).
 */
async function wait(o: Omit<ReadyWaitOptions, 'clock'>, clock = new FakeClock()): Promise<ReadyResult> {
  let result: ReadyResult | undefined;
  void waitForScheduler({ ...o, clock }).then((r) => (result = r));
  await flush();
  for (let polls = 0; result === undefined; polls++) {
    if (polls > 1_000) throw new Error('waitForScheduler did not answer within 1000 polls');
    await clock.advance(o.pollMs ?? 250);
  }
  return result;
}

// A fake at the port: answers from a script of states, one per poll.
function fakeClient(states: { health: boolean | 'throw'; workers: string[] }[]): SchedulerClient {
  let i = 0;
  const cur = () => states[Math.min(i, states.length - 1)]!;
  return {
    health: async () => {
      const s = cur();
      if (s.health === 'throw') {
        i++;
        throw new Error('ECONNREFUSED');
      }
      return s.health;
    },
    workers: async () => {
      const s = cur();
      i++;
      return s.workers.map((name, k) => ({ name, address: `tcp://h:${4000 + k}` }));
    },
  } as unknown as SchedulerClient;
}

const never = new Promise<string>(() => {});

describe('waitForScheduler', () => {
  it('waits through refused connections until every expected worker is registered', async () => {
    const client = fakeClient([
      { health: 'throw', workers: [] },
      { health: true, workers: ['a-0'] },
      { health: true, workers: ['a-0', 'b-0'] },
    ]);
    const r = await wait({
      client,
      expected: () => new Set(['a-0', 'b-0']),
      schedulerGone: never,
      timeoutMs: 5_000,
      pollMs: 1,
    });
    expect(r).toEqual({
      kind: 'ready',
      workers: [
        { name: 'a-0', address: 'tcp://h:4000' },
        { name: 'b-0', address: 'tcp://h:4001' },
      ],
    });
  });
  it('reports the missing workers when time runs out', async () => {
    const client = fakeClient([{ health: true, workers: ['a-0'] }]);
    const r = await wait({
      client,
      expected: () => new Set(['a-0', 'b-0']),
      schedulerGone: never,
      timeoutMs: 30,
      pollMs: 1,
    });
    expect(r).toMatchObject({ kind: 'partial', missing: ['b-0'] });
  });
  it('stops waiting when the scheduler process is gone, with its reason', async () => {
    const client = fakeClient([{ health: 'throw', workers: [] }]);
    const r = await wait({
      client,
      expected: () => new Set(),
      schedulerGone: Promise.resolve('port already in use'),
      timeoutMs: 5_000,
      pollMs: 1,
    });
    expect(r).toEqual({ kind: 'scheduler-failed', reason: 'port already in use' });
  });
  it('stops expecting a worker whose process died', async () => {
    const expected = new Set(['a-0', 'b-0']);
    const client = fakeClient([{ health: true, workers: ['a-0'] }]);
    const clock = new FakeClock();
    clock.after(5, () => expected.delete('b-0'));
    const r = await wait(
      {
        client,
        expected: () => expected,
        schedulerGone: never,
        timeoutMs: 5_000,
        pollMs: 1,
      },
      clock,
    );
    expect(r.kind).toBe('ready');
  });
  it('stops waiting at once when its signal is aborted (the cluster is being stopped)', async () => {
    const client = fakeClient([{ health: true, workers: [] }]);
    const stop = new AbortController();
    const waiting = waitForScheduler({
      client,
      expected: () => new Set(['a-0']),
      schedulerGone: never,
      timeoutMs: 600_000,
      pollMs: 600_000,
      signal: stop.signal,
      clock: new FakeClock(),
    });
    stop.abort();
    expect(await waiting).toEqual({ kind: 'stopped' });
  });

  it('asks the scheduler again at once on news (a worker said it registered), not after the poll interval', async () => {
    const client = fakeClient([
      { health: true, workers: ['a-0'] },
      { health: true, workers: ['a-0', 'b-0'] },
    ]);
    let poke = () => {};
    // The fake clock never moves here: without the news the wait would never end.
    const waiting = waitForScheduler({
      client,
      expected: () => new Set(['a-0', 'b-0']),
      schedulerGone: never,
      timeoutMs: 600_000,
      pollMs: 600_000,
      onNews: (p) => (poke = p),
      clock: new FakeClock(),
    });
    await flush();
    poke();
    expect((await waiting).kind).toBe('ready');
  });

  it('news that arrives while the scheduler is being asked is not lost', async () => {
    let poke = () => {};
    let asked = 0;
    const client = {
      health: async () => true,
      workers: async () => {
        asked++;
        if (asked === 1) poke(); // the worker's line lands during the first query
        return (asked === 1 ? ['a-0'] : ['a-0', 'b-0']).map((name) => ({ name, address: 'tcp://h:1' }));
      },
    } as unknown as SchedulerClient;
    const r = await wait({
      client,
      expected: () => new Set(['a-0', 'b-0']),
      schedulerGone: never,
      timeoutMs: 600_000,
      pollMs: 600_000,
      onNews: (p) => (poke = p),
    });
    expect(r.kind).toBe('ready');
    expect(asked).toBe(2);
  });
});

describe('waitForScheduler: whose scheduler answers', () => {
  const both = () => new Set(['a-0', 'b-0']);
  const full = () => fakeClient([{ health: true, workers: ['a-0', 'b-0'] }]);

  it("never takes another cluster's scheduler for its own, even with workers of our names; ours failing ends the wait", async () => {
    let asked = 0;
    let foreign = 0;
    let gone!: (why: string) => void;
    const schedulerGone = new Promise<string>((r) => (gone = r));
    const whose = async () => {
      if (++asked === 3) gone('address already in use');
      return 'foreign' as const;
    };
    const r = await wait({
      client: full(),
      expected: both,
      schedulerGone,
      timeoutMs: 5_000,
      pollMs: 1,
      whose,
      onForeign: () => foreign++,
    });
    expect(r).toEqual({ kind: 'scheduler-failed', reason: 'address already in use' });
    expect(asked).toBeGreaterThanOrEqual(3);
    expect(foreign).toBe(1);
  });

  it('says so when only another scheduler answered until the time ran out', async () => {
    const r = await wait({
      client: full(),
      expected: both,
      schedulerGone: never,
      timeoutMs: 30,
      pollMs: 1,
      whose: async () => 'foreign',
    });
    expect(r).toEqual({
      kind: 'scheduler-failed',
      reason: 'for 0.03s another scheduler answered on its port, not the one started',
    });
  });

  it('asks again while our pid is not known yet, and once it is ours asks no more', async () => {
    const answers = ['pending', 'pending', 'ours'] as const;
    let asked = 0;
    const whose = async () => answers[Math.min(asked++, answers.length - 1)]!;
    const r = await wait({
      client: full(),
      expected: both,
      schedulerGone: never,
      timeoutMs: 5_000,
      pollMs: 1,
      whose,
    });
    expect(r.kind).toBe('ready');
    expect(asked).toBe(3);
  });

  it('takes a scheduler that cannot say (no sshcluster preload), as before', async () => {
    const r = await wait({
      client: full(),
      expected: both,
      schedulerGone: never,
      timeoutMs: 5_000,
      pollMs: 1,
      whose: async () => 'unknown',
    });
    expect(r.kind).toBe('ready');
  });
});
