// The one stop escalation (app/transport/stop-tagged.ts) against a fake host: which
// signals go to which PIDs, in which order, and what is reported forced or left.
import { beforeEach, describe, expect, it } from 'vitest';
import { stopTagged, type StopTarget } from '../../../../src/app/transport/stop-tagged.js';
import { FakeClock } from '../../cluster/fakes.js';

// The waits run on a fake clock, stepped a millisecond at a time until the stop ends.
let clock = new FakeClock();
beforeEach(() => {
  clock = new FakeClock();
});
async function stepped<T>(p: Promise<T>): Promise<T> {
  let done = false;
  p.then(
    () => (done = true),
    () => (done = true),
  );
  for (let i = 0; i < 100_000 && !done; i++) await clock.advance(1);
  return p;
}

/** A host where `stubborn` PIDs ignore TERM and `immortal` ones ignore KILL too. */
function fakeHost(o: { stubborn?: number[]; immortal?: number[]; gone?: Promise<unknown> } = {}) {
  const sent: string[] = [];
  const alive = new Set<number>();
  const t: StopTarget = {
    async signal(sig, pids) {
      sent.push(`${sig} ${pids.join(',')}`);
      for (const p of pids) {
        if (o.immortal?.includes(p)) continue;
        if (sig === 'KILL' || !o.stubborn?.includes(p)) alive.delete(p);
      }
    },
    alive: async (pids) => pids.filter((p) => alive.has(p)),
    gone: o.gone,
  };
  return { t, sent, start: (...pids: number[]) => pids.forEach((p) => alive.add(p)) };
}

describe('stopTagged', () => {
  it('sends TERM only when everything goes within the grace', async () => {
    const h = fakeHost();
    h.start(10, 11);
    expect(await stepped(stopTagged(h.t, [10, 11], { graceMs: 5_000, pollMs: 1, clock }))).toEqual({
      stopped: [10, 11],
      forced: [],
      left: [],
    });
    expect(h.sent).toEqual(['TERM 10,11']);
  });

  it('sends KILL to what outlives the grace and reports it forced', async () => {
    const h = fakeHost({ stubborn: [11] });
    h.start(10, 11);
    expect(await stepped(stopTagged(h.t, [10, 11], { graceMs: 20, pollMs: 1, clock }))).toEqual({
      stopped: [10, 11],
      forced: [11],
      left: [],
    });
    expect(h.sent).toEqual(['TERM 10,11', 'KILL 11']);
  });

  it('reports what outlives KILL as left', async () => {
    const h = fakeHost({ immortal: [12] });
    h.start(12);
    expect(await stepped(stopTagged(h.t, [12], { graceMs: 10, verifyMs: 10, pollMs: 1, clock }))).toEqual({
      stopped: [12],
      forced: [12],
      left: [12],
    });
  });

  it('with no grace sends KILL at once', async () => {
    const h = fakeHost();
    h.start(10);
    expect(await stepped(stopTagged(h.t, [10], { graceMs: 0, pollMs: 1, clock }))).toEqual({
      stopped: [10],
      forced: [10],
      left: [],
    });
    expect(h.sent).toEqual(['KILL 10']);
  });

  it('a forced stop cuts the grace short', async () => {
    const h = fakeHost({ stubborn: [10] });
    h.start(10);
    const force = new AbortController();
    const stopping = stopTagged(h.t, [10], { graceMs: 600_000, pollMs: 1, force: force.signal, clock });
    await clock.advance(5);
    force.abort();
    expect(await stepped(stopping)).toEqual({ stopped: [10], forced: [10], left: [] });
    expect(h.sent).toEqual(['TERM 10', 'KILL 10']);
    // Cut short: KILL came 5 ms into a 10-minute grace, and the check after it took a poll.
    expect(clock.now() - 1_000_000).toBeLessThan(1_000);
  });

  it('ends the wait when the process reports its exit, without polling to the end', async () => {
    let exit!: () => void;
    const h = fakeHost({ stubborn: [10], gone: new Promise<void>((r) => (exit = r)) });
    h.start(10);
    const stopping = stopTagged(h.t, [10], { graceMs: 600_000, pollMs: 600_000, clock });
    exit();
    expect(await stopping).toEqual({ stopped: [10], forced: [], left: [] });
  });

  it('does nothing for no PIDs', async () => {
    const h = fakeHost();
    expect(await stepped(stopTagged(h.t, [], { graceMs: 10, clock }))).toEqual({ stopped: [], forced: [], left: [] });
    expect(h.sent).toEqual([]);
  });
});
