// The rules behind the last review's fixes, stepped by hand over fake ports: retiring
// (its long timeout, not blocking the tick, a scale change while one is in flight), a
// user's scale retrying crash loops, re-adoption (and the size it keeps), a reconnect
// whose clean-up fails, and teardown's unchecked hosts. (An adopted launcher surviving
// its old channel's late EOF is the launcher's rule: dask-launcher-orphan.test.ts.)
import { describe, expect, it } from 'vitest';
import { readopt, type PreviousCluster } from '../../../src/cluster/start-stop/readopt.js';
import { RETIRE_TIMEOUT_MS } from '../../../src/cluster/tick/process-lifecycle.js';
import { TEARDOWN_GRACE_MS, teardown } from '../../../src/cluster/start-stop/teardown.js';
import type { FakeProcess } from './fakes.js';
import { flush, harness, startUp, type Harness } from './harness.js';

const hold = () => new Promise<void>(() => {});

describe('retiring a worker', () => {
  it('waits for retire_workers well past a status timeout (its data moves first), up to its own long limit', async () => {
    const h = harness({ workers: ['a'], nworkers: 2 });
    await startUp(h);
    h.scheduler.retireHold = hold();
    await h.reconciler.scale(1);
    const leaving = h.host('a').running('a-1')[0]!;
    expect(h.scheduler.retireCalls).toEqual([['tcp://a-1:1']]);
    // Kept by the scheduler until the stop ends it: it does not close itself meanwhile.
    expect(h.scheduler.retireKeep).toEqual([true]);
    await h.clock.advance(60_000);
    expect(leaving.stops).toBe(0);
    await h.clock.advance(RETIRE_TIMEOUT_MS - 60_000);
    expect(leaving.stops).toBe(1);
  });

  it('stops waiting for the scheduler when the cluster ends (teardown stops the process)', async () => {
    const h = harness({ workers: ['a'], nworkers: 2 });
    await startUp(h);
    h.scheduler.retireHold = hold();
    await h.reconciler.scale(1);
    const leaving = h.host('a').running('a-1')[0]!;
    h.life.abort();
    await flush();
    expect(leaving.stops).toBe(1);
  });

  it('does not hold up the tick: a worker dying meanwhile is restarted', async () => {
    const h = harness({ workers: ['a', 'b'] });
    await startUp(h);
    h.scheduler.retireHold = hold();
    await h.reconciler.scale(1); // resolves although the retirement never does
    const kept = h.state.desiredWorkers[0]!;
    h.host(kept.host).running(kept.name)[0]!.die();
    await h.clock.advance(1_100);
    expect(h.host(kept.host).running(kept.name)).toHaveLength(1);
  });

  it('keeps one process per name when scale changes while a retirement is in flight', async () => {
    const h = harness({ workers: ['a'], nworkers: 2 });
    await startUp(h);
    let letGo!: () => void;
    h.scheduler.retireHold = new Promise((r) => (letGo = r));
    await h.reconciler.scale(1);
    await h.reconciler.scale(2); // a-1 is wanted again while it is still retiring
    await h.reconciler.tick();
    expect(h.host('a').running('a-1')).toHaveLength(1);
    expect(h.scheduler.retireCalls).toHaveLength(1);
    letGo();
    await flush();
    await h.reconciler.tick();
    expect(h.host('a').running('a-1')).toHaveLength(1); // the old one stopped, a new one started
    expect(h.host('a').started.filter((p) => p.spec.name === 'a-1')).toHaveLength(2);
  });
});

/** Makes the first desired worker crash-loop (5 quick failures); returns it. */
async function crashLoop(h: Harness) {
  const w = h.state.desiredWorkers[0]!;
  for (let i = 0; i < 5; i++) {
    h.host(w.host).running(w.name)[0]!.die();
    await h.clock.advance(61_000);
  }
  expect(h.state.supervisor.status(w.name).state).toBe('crash-looping');
  return w;
}

describe("a user's scale", () => {
  it('retries a crash-looping worker and clears its host degraded mark', async () => {
    const h = harness({ workers: ['a'] });
    await startUp(h);
    const w = await crashLoop(h);
    expect(h.state.health.state('a')?.kind).toBe('degraded');
    await h.reconciler.scale(1, { retryCrashed: true });
    expect(h.host('a').running(w.name)).toHaveLength(1);
    expect(h.state.health.state('a')?.kind).toBe('up');
  });

  it('places new workers away from the retried host: the retry has to prove it first', async () => {
    const h = harness({ workers: ['a', 'b'], nworkers: 2, initialWorkers: 2 });
    await startUp(h);
    const w = await crashLoop(h);
    expect(w.host).toBe('a');
    // Without the rule the tie (one worker each) would go to a, the first host.
    await h.reconciler.scale(3, { retryCrashed: true });
    expect(h.state.desiredWorkers.map((x) => x.name).sort()).toEqual(['a-0', 'b-0', 'b-1']);
    expect(h.host('a').running(w.name)).toHaveLength(1);
  });

  it('is the only one that does: an adaptive step to the same size leaves the crash loop alone', async () => {
    const h = harness({ workers: ['a'] });
    await startUp(h);
    const w = await crashLoop(h);
    await h.reconciler.scale(1);
    expect(h.host('a').running(w.name)).toEqual([]);
    expect(h.state.health.state('a')?.kind).toBe('degraded');
  });
});

const previous = (h: Harness, desiredWorkers?: number): PreviousCluster => ({
  schedulerAddress: 'tcp://n0:8786',
  desiredWorkers,
  processes: [
    { name: 'scheduler', host: 'n0', role: 'scheduler', pid: 501 },
    { name: 'a-0', host: 'a', role: 'worker', pid: 601 },
    { name: 'b-0', host: 'b', role: 'worker', pid: 701 },
  ],
});

async function leftRunning(h: Harness, procs: Record<string, number[]>) {
  await Promise.all(h.state.hosts().map((x) => h.reconciler.links.connect(x.name)));
  for (const [host, pids] of Object.entries(procs))
    for (const pid of pids) h.host(host).remote.set(pid, { pid, ppid: 1, pgid: pid });
}

const adoptDeps = (h: Harness) => ({
  state: h.state,
  address: 'tcp://n0:8786',
  emit: (e: never) => h.events.push(e),
  adopt: h.reconciler.lifecycle.adopt.bind(h.reconciler.lifecycle),
});

describe('re-adoption', () => {
  it('adopts what still runs, stops strays, and the next tick starts only what is missing', async () => {
    const h = harness({ workers: ['a', 'b'] });
    await leftRunning(h, { n0: [501], a: [601, 666] }); // b-0 died meanwhile; 666 was never recorded
    expect(await readopt(adoptDeps(h), previous(h))).toBe(2);
    expect(h.host('a').stopped).toEqual([666]);
    await h.reconciler.tick();
    expect(h.host('n0').started.map((p) => p.remotePid)).toEqual([501]);
    expect(h.host('a').started.map((p) => p.remotePid)).toEqual([601]);
    expect(h.host('b').running('b-0')).toHaveLength(1);
  });

  it('keeps the worker count the dead controller was keeping, not the host file size', async () => {
    const h = harness({ workers: ['a', 'b'], nworkers: 2 }); // the host file says 4
    await leftRunning(h, { n0: [501], a: [601], b: [701] });
    await readopt(adoptDeps(h), previous(h, 3));
    expect(h.state.desiredWorkers.map((w) => w.name).sort()).toEqual(['a-0', 'a-1', 'b-0']);
  });

  it('without the old scheduler, stops everything tagged and adopts nothing', async () => {
    const h = harness({ workers: ['a', 'b'] });
    await leftRunning(h, { a: [601], b: [701] });
    expect(await readopt(adoptDeps(h), previous(h))).toBe(0);
    expect([h.host('a').stopped, h.host('b').stopped]).toEqual([[601], [701]]);
    expect(h.notices()).toContain(
      "the previous controller's scheduler is gone; stopped 2 process(es) it left: starting the cluster afresh",
    );
  });
});

describe('a reconnect whose clean-up fails', () => {
  it('closes that connection and keeps the host unreachable', async () => {
    const h = harness({ workers: ['a'] });
    await startUp(h);
    // The new connection's listing (to stop what the old session left) fails.
    h.onConnect = (host) => (host.failListTagged = true);
    h.host('a').drop();
    await h.clock.advance(1_100);
    expect(h.events).toContainEqual({ kind: 'host-state', host: 'a', state: 'unreachable', reason: 'listing failed' });
    expect(h.host('a').closed).toBe(true);
    expect(h.state.usable('a')).toBe(false);
    expect(h.state.health.state('a')?.kind).toBe('unreachable');
  });
});

/** What teardown needs, from the harness. */
function teardownDeps(h: Harness) {
  return {
    state: h.state,
    clock: h.clock,
    emit: (e: never) => h.events.push(e),
    scheduler: () => h.scheduler,
    closeAll: () => h.reconciler.links.closeAll(),
  };
}

describe('teardown', () => {
  it('reports a host it could not check instead of claiming nothing is left', async () => {
    const h = harness({ workers: ['a', 'b'] });
    await startUp(h);
    h.refuse.set('b', 'no route');
    h.host('b').drop();
    await flush();
    const deps = teardownDeps(h);
    const r = await teardown(deps, { reason: 'test', force: false });
    expect(r.leftover).toEqual([{ host: 'b', pids: [] }]);
    expect(h.notices()).toContain('b: not connected, so not checked; `sshcluster down` can check it later');
    expect(h.scheduler.retireCalls).toEqual([['tcp://a-0:1']]);
    // Kept by the scheduler until the stop ends them: none closes itself meanwhile.
    expect(h.scheduler.retireKeep).toEqual([true]);
    expect(h.host('a').running()).toEqual([]);
    expect(h.host('n0').running()).toEqual([]);
  });

  it('names a host it could not check once, also when an apply had removed it (a former host)', async () => {
    // Found by the h40ssh trial: `apply` removed an unreachable host, then `down` printed
    // "NOT CHECKED: 10.213.41.14 (…)" twice.
    const h = harness({ workers: ['a', 'b'] });
    await startUp(h);
    h.refuse.set('b', 'no route');
    h.host('b').drop();
    await flush();
    const deps = { ...teardownDeps(h), clearFormer: async () => [{ host: 'b', pids: [] }] };
    const r = await teardown(deps, { reason: 'test', force: false });
    expect(r.leftover).toEqual([{ host: 'b', pids: [] }]);
  });

  it('says how many results only the workers held went with them (down stops them anyway)', async () => {
    const h = harness({ workers: ['a', 'b'] });
    await startUp(h);
    h.scheduler.unmovable.set('a-0', 12).set('b-0', 8);
    const deps = teardownDeps(h);
    const r = await teardown(deps, { reason: 'test', force: false });
    expect(r.droppedResults).toBe(20);
    expect(h.notices()).toContain('down: 20 result(s) only the workers held are dropped with them');
    expect([...h.host('a').running(), ...h.host('b').running()]).toEqual([]);
  });

  it("looks at each host once what ran there has stopped: a worker host's last look does not wait for the scheduler's stop", async () => {
    const h = harness({ workers: ['a', 'b'] });
    await startUp(h);
    // The scheduler takes its time to stop (a slow close on a busy host).
    const release = holdStop(h.host('n0').running('scheduler')[0]!);
    const done = teardown(teardownDeps(h), { reason: 'test', force: false });
    await flush();
    expect(h.host('a').filesRemoved).toEqual([0]);
    expect(h.host('b').filesRemoved).toEqual([0]);
    expect(h.host('n0').filesRemoved).toEqual([]); // the scheduler's host waits for it
    release();
    const r = await done;
    expect(r.leftover).toEqual([]);
    expect(h.host('n0').filesRemoved).toEqual([0]);
    expect(h.host('n0').running()).toEqual([]);
  });

  it("tells each process it stops that the cluster ends (a host's last launcher then removes the files); a scale-down does not", async () => {
    const h = harness({ workers: ['a'], nworkers: 2 });
    await startUp(h);
    await h.reconciler.scale(1);
    await flush();
    const retired = h.host('a').started.find((p) => p.stops > 0)!;
    expect(retired.lastStop).toEqual({ graceMs: expect.any(Number), forced: false, clusterEnds: false });
    await teardown(teardownDeps(h), { reason: 'test', force: false });
    const ended = [...h.host('a').started, ...h.host('n0').started].filter((p) => p !== retired);
    expect(ended.map((p) => p.lastStop?.clusterEnds)).toEqual([true, true]);
  });

  it("hands each host's look what its last process said as it ended: where it found nothing of ours left, no look is needed", async () => {
    const h = harness({ workers: ['a', 'b'] });
    await startUp(h);
    // A process on b that none of ours started (a stray): b's last process cannot say b is clean.
    h.host('b').remote.set(99, { pid: 99, ppid: 1, pgid: 99 });
    const r = await teardown(teardownDeps(h), { reason: 'test', force: false });
    expect(r.leftover).toEqual([]);
    expect([h.host('n0').reportedClean, h.host('a').reportedClean, h.host('b').reportedClean]).toEqual([
      [true],
      [true],
      [false],
    ]);
    expect(h.host('b').stopped).toContain(99); // b's look stopped it
  });

  it("stops the scheduler with the workers, not after their exits: a slow worker exit does not hold up the scheduler's", async () => {
    const h = harness({ workers: ['a', 'b'] });
    await startUp(h);
    // a-0 takes its time to end (64 Python processes shutting down on 2 cores).
    const release = holdStop(h.host('a').running('a-0')[0]!);
    const done = teardown(teardownDeps(h), { reason: 'test', force: false });
    await flush();
    // Retired first, as before; then every stop at once.
    expect(h.scheduler.retireCalls).toEqual([['tcp://a-0:1', 'tcp://b-0:1']]);
    const [sched] = h.host('n0').started.filter((p) => p.spec.name === 'scheduler');
    expect(sched!.stops).toBe(1);
    expect(h.host('n0').running()).toEqual([]);
    expect(h.host('n0').filesRemoved).toEqual([0]); // its host looked at already
    expect(h.host('a').filesRemoved).toEqual([]); // a-0's host waits for a-0
    release();
    const r = await done;
    expect(r.leftover).toEqual([]);
    expect(h.host('a').running()).toEqual([]);
    expect(h.host('a').filesRemoved).toEqual([0]);
  });

  it('waits for a start still under way, then stops what it started: no host is looked at before it lands', async () => {
    const h = harness({ workers: ['a', 'b'] });
    await startUp(h);
    // a-0 dies; its restart's launch has not answered when the teardown begins.
    const a = h.host('a');
    let land!: () => void;
    const launched = new Promise<void>((r) => (land = r));
    const start = a.start.bind(a);
    a.start = async (spec) => (await launched, start(spec));
    a.running('a-0')[0]!.die(0);
    await h.clock.advance(30_000); // past the restart's back-off: the restart is launched
    expect(h.reconciler.lifecycle.starting('a-0')).toBe(true);
    const done = teardown(
      { ...teardownDeps(h), startsSettled: () => h.reconciler.lifecycle.settled() },
      {
        reason: 'test',
        force: false,
      },
    );
    await flush();
    expect(a.filesRemoved).toEqual([]); // not looked at while its start is under way
    land();
    const r = await done;
    expect(r.leftover).toEqual([]);
    expect(a.running()).toEqual([]);
    expect(a.filesRemoved).toEqual([0]);
  });

  it('does not wait longer than a grace for a launch that never answers', async () => {
    const h = harness({ workers: ['a', 'b'] });
    await startUp(h);
    const a = h.host('a');
    a.start = () => new Promise(() => {}); // a launch that hangs
    a.running('a-0')[0]!.die(0);
    await h.clock.advance(30_000);
    expect(h.reconciler.lifecycle.starting('a-0')).toBe(true);
    let ended = false;
    const done = teardown(
      { ...teardownDeps(h), startsSettled: () => h.reconciler.lifecycle.settled() },
      { reason: 'test', force: false },
    ).then((r) => ((ended = true), r));
    await h.clock.advance(TEARDOWN_GRACE_MS - 1);
    expect(ended).toBe(false);
    await h.clock.advance(1);
    expect((await done).leftover).toEqual([]);
    expect(h.host('b').running()).toEqual([]);
  });

  it("removes the cluster's files from each host only once nothing of ours is left there", async () => {
    const h = harness({ workers: ['a', 'b'] });
    await startUp(h);
    // A process on b that survives every stop: b is not clean, so its files stay.
    const b = h.host('b');
    b.stopTagged = async () => ({ stopped: [999], forced: [], left: [999] });
    const deps = teardownDeps(h);
    const r = await teardown(deps, { reason: 'test', force: false });
    expect(r.leftover).toEqual([{ host: 'b', pids: [999] }]);
    expect(h.host('a').filesRemoved).toEqual([0]);
    expect(h.host('n0').filesRemoved).toEqual([0]);
    expect(b.filesRemoved).toEqual([]);
  });

  it('also clears the hosts an apply removed that no runner reaches, and reports one it could not', async () => {
    const h = harness({ workers: ['a', 'b'] });
    await startUp(h);
    let asked = 0;
    const clearFormer = async () => (asked++, [{ host: 'gone', pids: [] }]);
    const deps = { ...teardownDeps(h), clearFormer };
    const r = await teardown(deps, { reason: 'test', force: false });
    expect(asked).toBe(1);
    expect(r.leftover).toEqual([{ host: 'gone', pids: [] }]);
    expect(h.events).toContainEqual(
      expect.objectContaining({ kind: 'teardown-done', leftover: [{ host: 'gone', pids: [] }] }),
    );
  });

  it('stops the workers directly, saying nothing, when the scheduler process has ended (a Client.shutdown())', async () => {
    const h = harness({ workers: ['a'] });
    await startUp(h);
    h.host('n0').running('scheduler')[0]!.exit(0);
    await flush();
    const deps = teardownDeps(h);
    const r = await teardown(deps, { reason: 'sshcluster down', force: false });
    expect(r.leftover).toEqual([]);
    expect(h.scheduler.retireCalls).toEqual([]);
    expect(h.notices()).toEqual([]);
    expect(h.host('a').running()).toEqual([]);
  });

  it('goes on at once after a second Ctrl-C while the scheduler still moves data, and gives no grace', async () => {
    const h = harness({ workers: ['a'] });
    await startUp(h);
    h.scheduler.retireHold = hold();
    const force = new AbortController();
    const deps = teardownDeps(h);
    const done = teardown(deps, { reason: 'Ctrl-C', force: false, forceSignal: force.signal });
    await flush();
    expect(h.scheduler.retireCalls).toHaveLength(1);
    force.abort();
    const r = await done;
    expect(r.leftover).toEqual([]);
    expect(h.host('a').started[0]!.lastStop).toEqual({ graceMs: 10_000, forced: true, clusterEnds: true });
    expect(h.notices()).toContain(
      'retiring workers through the scheduler failed (Error: forced); stopping them directly',
    );
  });
});

/** Holds a fake process's stop until the returned release is called (a slow close). */
function holdStop(p: FakeProcess): () => void {
  let release!: () => void;
  const slow = new Promise<void>((r) => (release = r));
  const stop = p.stop.bind(p);
  p.stop = async (grace, force) => (await slow, stop(grace, force));
  return release;
}
