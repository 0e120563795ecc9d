// The tick plans only when something it plans from changed since its last plan, which
// had nothing to do: counted by the reconciler (counts) and by the reads of the state's
// process map, at 500 hosts, where timing could not tell a rescan from none.
import { describe, expect, it } from 'vitest';
import { RESYNC_TICKS } from '../../../../src/cluster/tick/reconciler.js';
import { flush, harness, startUp, type Harness } from '../harness.js';

const HOSTS = Array.from({ length: 500 }, (_, i) => `h${i}`);

/** The harness at 500 hosts after start-up, with its process map's reads counted. */
async function big(): Promise<Harness & { reads: () => number }> {
  const h = harness({ workers: HOSTS });
  await startUp(h);
  await h.reconciler.tick(); // the first quiet plan: nothing left to do
  let reads = 0;
  const m = h.state.processes;
  const get = m.get.bind(m);
  m.get = (k) => (reads++, get(k));
  return Object.assign(h, { reads: () => reads });
}

const started = (h: Harness) => [...h.hosts.values()].reduce((n, x) => n + x.started.length, 0);

describe('the incremental tick', () => {
  it('plans nothing and reads no process while nothing changed', async () => {
    const h = await big();
    const before = { ...h.reconciler.counts };
    const n = started(h);
    for (let i = 0; i < 10; i++) await h.reconciler.tick();
    expect(h.reconciler.counts.plans).toBe(before.plans);
    expect(h.reconciler.counts.skipped).toBe(before.skipped + 10);
    expect(h.reads()).toBe(0);
    expect(started(h)).toBe(n);
  });

  it('acts on a worker that exited, once its back-off is over, with nothing else changing', async () => {
    const h = await big();
    h.host('h250').running('h250-0')[0]!.die();
    await flush();
    const plans = h.reconciler.counts.plans;
    await h.reconciler.tick(); // plans: the exit changed the state; the back-off holds the start
    expect(h.reconciler.counts.plans).toBe(plans + 1);
    expect(h.host('h250').running('h250-0')).toHaveLength(0);
    await h.clock.advance(2_000); // the back-off's wake-up tick
    expect(h.host('h250').running('h250-0')).toHaveLength(1);
  });

  it("acts on the scheduler's list changing, and on a host whose health changed", async () => {
    const h = await big();
    const plans = h.reconciler.counts.plans;
    h.scheduler.registered.delete('h7-0');
    await h.reconciler.tick();
    expect(h.reconciler.counts.plans).toBe(plans + 1);
    expect(h.state.registered.has('h7-0')).toBe(false);
    h.host('h9').drop();
    await flush();
    await h.reconciler.tick();
    expect(h.reconciler.counts.plans).toBe(plans + 2);
    await h.clock.advance(2_000); // the reconnect's wake-up: connected again, its worker back
    expect(h.state.health.state('h9')?.kind).toBe('up');
    expect(h.host('h9').running('h9-0')).toHaveLength(1);
  });

  it('acts on a scale at once (the desired list changed)', async () => {
    const h = await big();
    await h.reconciler.retire(['h1-0', 'h2-0']);
    await flush();
    expect(h.host('h1').running('h1-0')).toHaveLength(0);
    expect(h.host('h2').running('h2-0')).toHaveLength(0);
    await h.reconciler.scale(500);
    expect(h.state.processes.get('h1-0')?.exit).toBeUndefined();
  });

  it('tries a start that failed again at the next tick', async () => {
    const h = await big();
    const host = h.host('h3');
    const start = host.start.bind(host);
    let fail = true;
    host.start = async (spec) => {
      if (fail) throw new Error('channel open failed');
      return start(spec);
    };
    host.running('h3-0')[0]!.die();
    await h.clock.advance(2_000); // the back-off's tick tries, and fails
    expect(host.running('h3-0')).toHaveLength(0);
    fail = false;
    await h.reconciler.tick();
    expect(host.running('h3-0')).toHaveLength(1);
  });

  it(`plans again after ${RESYNC_TICKS} quiet ticks, whatever the versions say`, async () => {
    const h = await big();
    const plans = h.reconciler.counts.plans;
    for (let i = 0; i < RESYNC_TICKS; i++) await h.reconciler.tick();
    expect(h.reconciler.counts.plans).toBe(plans + 1);
  });
});
