// One tick applies at most TICK_STARTS starts and TICK_RETIRES retirements; the rest go to
// follow-up ticks at once (a timer of 0 ms on the injected clock), not to the periodic
// tick 2 s later. Counted, not timed: how many starts and retirements each tick applied.
import { describe, expect, it } from 'vitest';
import { TICK_RETIRES, TICK_STARTS } from '../../../../src/cluster/tick/reconciler.js';
import { flush, harness, type Harness } from '../harness.js';

/** `workers` workers (plus the scheduler), 4 a host when they divide by 4, else 1. */
function cluster(workers: number): Harness {
  const per = workers % 4 ? 1 : 4;
  const hosts = Array.from({ length: workers / per }, (_, i) => `h${i}`);
  return harness({ workers: hosts, nworkers: per });
}

const startedNames = (h: Harness) => [...h.hosts.values()].flatMap((x) => x.started.map((p) => p.spec.name));

async function connected(h: Harness): Promise<void> {
  await Promise.all(h.state.hosts().map((x) => h.reconciler.links.connect(x.name)));
}

/** Every host connected, every worker started (follow-ups included) and registered, start-up over. */
async function upAndRegistered(h: Harness): Promise<void> {
  await connected(h);
  await h.reconciler.tick();
  await h.clock.advance(0);
  for (const w of h.state.desiredWorkers) h.scheduler.registered.add(w.name);
  await h.reconciler.tick();
  h.reconciler.startupDone();
}

describe('the tick cap', () => {
  it('starts at most TICK_STARTS in one tick and the rest in follow-up ticks, not on the periodic timer', async () => {
    const h = cluster(2 * TICK_STARTS + 400);
    const wanted = h.state.desired().length; // the scheduler and 2,400 workers
    await connected(h);
    await h.reconciler.tick();
    await flush();
    expect(startedNames(h)).toHaveLength(TICK_STARTS);
    expect(h.reconciler.counts.capped).toBe(1);
    await h.clock.advance(0); // the follow-ups are due now: no time passes
    expect(startedNames(h)).toHaveLength(wanted);
    expect(new Set(startedNames(h)).size).toBe(wanted); // none started twice
    expect(h.reconciler.counts.capped).toBe(Math.ceil(wanted / TICK_STARTS) - 1); // every tick but the last
    expect(h.state.alive()).toHaveLength(wanted);
  });

  it('does not wait for a capped tick’s starts: the follow-up starts the rest while they are under way', async () => {
    const h = cluster(TICK_STARTS + 100);
    const wanted = h.state.desired().length;
    await connected(h);
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    let asked = 0;
    for (const host of h.hosts.values()) {
      const start = host.start.bind(host);
      host.start = async (spec) => {
        asked++;
        await gate; // the hosts answer only once every start has been asked
        return start(spec);
      };
    }
    await h.reconciler.tick(); // returns with its starts still unanswered
    expect(asked).toBe(TICK_STARTS);
    await h.clock.advance(0);
    expect(asked).toBe(wanted);
    open();
    await flush();
    await h.reconciler.tick();
    await h.clock.advance(0);
    expect(startedNames(h)).toHaveLength(wanted);
    expect(new Set(startedNames(h)).size).toBe(wanted);
  });

  it('follow-ups go on with the capped plan: no new plan, no new read of the scheduler’s list', async () => {
    const h = cluster(3 * TICK_STARTS);
    const wanted = h.state.desired().length;
    await connected(h);
    let reads = 0;
    const workers = h.scheduler.workers.bind(h.scheduler);
    h.scheduler.workers = () => (reads++, workers());
    await h.reconciler.tick();
    const { plans } = h.reconciler.counts;
    await h.clock.advance(0);
    expect(startedNames(h)).toHaveLength(wanted);
    expect(h.reconciler.counts.plans).toBe(plans);
    expect(reads).toBe(1);
  });

  it('a follow-up skips what is no longer to do: a start on a host that dropped since', async () => {
    const h = cluster(2 * TICK_STARTS); // 4 a host: the first tick reaches h62, not h100
    await connected(h);
    await h.reconciler.tick();
    expect(h.host('h100').started).toHaveLength(0);
    h.host('h100').drop();
    await h.clock.advance(0);
    expect(h.host('h100').started).toHaveLength(0);
    expect(h.host('h101').started).toHaveLength(4);
  });

  it('a follow-up after the desired workers changed plans anew', async () => {
    const h = cluster(2 * TICK_STARTS);
    await connected(h);
    await h.reconciler.tick(); // capped: the rest is left to a follow-up
    await h.reconciler.scale(10);
    await h.clock.advance(0);
    expect(startedNames(h)).toHaveLength(TICK_STARTS); // nothing of the old plan started
    expect(h.state.alive('worker').map((t) => t.desired.name)).toEqual(h.state.desiredWorkers.map((w) => w.name));
  });

  it('retires at most TICK_RETIRES in one tick and the rest in follow-up ticks', async () => {
    const h = cluster(TICK_RETIRES + 700);
    await upAndRegistered(h);
    const names = h.state.desiredWorkers.slice(100).map((w) => w.name);
    await h.reconciler.retire(names);
    await flush();
    expect(h.scheduler.retireCalls).toHaveLength(TICK_RETIRES);
    await h.clock.advance(0);
    expect(h.scheduler.retireCalls.flat()).toHaveLength(names.length);
    expect(new Set(h.scheduler.retireCalls.flat()).size).toBe(names.length);
    expect(h.state.alive('worker')).toHaveLength(100);
  });

  it('waits, for the outcomes of retirements a capped tick left, until its follow-ups have begun them', async () => {
    const h = cluster(TICK_RETIRES + 100);
    await upAndRegistered(h);
    const names = h.state.desiredWorkers.slice(10).map((w) => w.name);
    const last = names.at(-1)!;
    h.scheduler.unmovable.set(last, 3); // its results have nowhere to go: kept running
    await h.reconciler.retire(names);
    const outcomes = h.reconciler.outcomes(names); // as drain, apply and scale ask, at once
    await h.clock.advance(0);
    expect((await outcomes).get(last)).toEqual({ kind: 'held', results: 3 });
    expect(h.state.alive('worker').map((t) => t.desired.name)).toEqual([
      ...h.state.desiredWorkers.map((w) => w.name),
      last,
    ]);
  });

  it('applies a tick under the cap in that tick, with no follow-up', async () => {
    const h = cluster(TICK_STARTS - 1); // the scheduler makes TICK_STARTS starts
    await connected(h);
    await h.reconciler.tick();
    expect(startedNames(h)).toHaveLength(TICK_STARTS);
    expect(h.state.alive()).toHaveLength(TICK_STARTS); // tracked when the tick returns, as before
    expect(h.reconciler.counts.capped).toBe(0);
  });
});
