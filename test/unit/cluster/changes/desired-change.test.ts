// apply's spec change, drain/undrain and the rolling restart, stepped by hand over the
// fake hosts and scheduler (the scheduler registers what runs, unless told a process is
// broken).
import { describe, expect, it } from 'vitest';
import { applySpec, drainHosts, restoreHost, undrainHosts } from '../../../../src/cluster/changes/desired-change.js';
import { hostsToClear, tmpdirsOn, withFormer } from '../../../../src/cluster/changes/former-hosts.js';
import type { HostSpec } from '../../../../src/config/spec.js';
import { rollingRestart, type RollResult } from '../../../../src/cluster/changes/rolling.js';
import { diffSpecs } from '../../../../src/cluster/changes/spec-diff.js';
import { testHost } from '../../config/spec-fixture.js';
import { flush, harness, startUp, type Harness } from '../harness.js';

/** The fake scheduler lists every running worker process, except the broken ones. */
function registersWhatRuns(h: Harness, broken: (name: string, argv: string[]) => boolean = () => false): void {
  h.scheduler.workers = async () =>
    [...h.hosts.values()].flatMap((host) =>
      host
        .running()
        .filter((p) => p.spec.role === 'worker' && !broken(p.spec.name, p.spec.argv))
        .map((p) => ({ name: p.spec.name, address: `tcp://${p.spec.name}:${p.remotePid}` })),
    );
}

/** Runs a roll to its end, moving the clock on while it waits; how many were registered as each restart began. */
async function roll(
  h: Harness,
  names: string[],
  maxUnavailable = 1,
  progress: (line: string) => void = () => {},
): Promise<{ r: RollResult; registeredAtRestart: number[] }> {
  const registeredAtRestart: number[] = [];
  const tick = () => h.reconciler.tick();
  const restart = (n: string) => (registeredAtRestart.push(h.state.registered.size), h.reconciler.restartWorker(n));
  const done = rollingRestart(
    { state: h.state, clock: h.clock, signal: h.life.signal, restart, tick, progress },
    names,
    { maxUnavailable, timeoutMs: 30_000, pollMs: 500 },
  );
  let r: RollResult | undefined;
  void done.then((x) => (r = x));
  for (let i = 0; i < 400 && !r; i++) await h.clock.advance(500);
  return { r: r!, registeredAtRestart };
}

describe('drain', () => {
  it("retires a host's workers, places as many elsewhere, and places nothing there until undrained", async () => {
    const h = harness({ workers: ['a', 'b'], nworkers: 2, initialWorkers: 2 });
    await startUp(h);
    expect(h.state.desiredWorkers.map((w) => w.name)).toEqual(['a-0', 'b-0']);
    const r = drainHosts(h.state, ['a', 'nope'], true);
    expect(r).toEqual({ unknown: ['nope'], unchanged: [], retired: ['a-0'], replaced: ['b-1'], short: 0 });
    await h.reconciler.tick();
    await flush();
    expect(h.host('a').running()).toEqual([]);
    expect(
      h
        .host('b')
        .running()
        .map((p) => p.spec.name)
        .sort(),
    ).toEqual(['b-0', 'b-1']);
    expect(h.scheduler.retireCalls).toEqual([['tcp://a-0:1']]);
    expect(h.scheduler.retireKeep).toEqual([true]);
    await h.reconciler.scale(3);
    expect(h.state.desiredWorkers.map((w) => w.host)).toEqual(['b', 'b']);
    // The third of the scale is the drained host's to hold: it starts at undrain.
    expect(undrainHosts(h.state, ['a', 'b', 'nope'])).toEqual({
      back: ['a'],
      unknown: ['nope'],
      unchanged: ['b'],
      retired: [],
      replaced: ['a-0'],
      short: 0,
    });
    await h.reconciler.scale(3);
    expect(h.state.desiredWorkers.map((w) => w.name)).toEqual(['b-0', 'b-1', 'a-0']);
  });

  it('with no room elsewhere, the size falls short until undrain starts those workers again; a scale forgets them', async () => {
    const h = harness({ workers: ['a', 'b'], nworkers: 1 }); // one worker per host at most
    await startUp(h);
    expect(drainHosts(h.state, ['a'], true)).toEqual({
      unknown: [],
      unchanged: [],
      retired: ['a-0'],
      replaced: [],
      short: 1,
    });
    expect(h.state.desiredWorkers.map((w) => w.name)).toEqual(['b-0']);
    // A name that is not drained changes nothing, shortfall or not.
    expect(undrainHosts(h.state, ['nope', 'b'])).toEqual({
      back: [],
      unknown: ['nope'],
      unchanged: ['b'],
      retired: [],
      replaced: [],
      short: 1,
    });
    const back = undrainHosts(h.state, ['a']);
    expect(back).toEqual({ back: ['a'], unknown: [], unchanged: [], retired: [], replaced: ['a-0'], short: 0 });
    await h.reconciler.tick();
    await flush();
    expect(
      h
        .host('a')
        .running()
        .map((p) => p.spec.name),
    ).toEqual(['a-0']);
    // Drained again (a second drain changes nothing), then resized by hand: undrain adds nothing.
    drainHosts(h.state, ['a'], true);
    expect(drainHosts(h.state, ['a'], true)).toMatchObject({ unchanged: ['a'], retired: [] });
    await h.reconciler.scale(1);
    expect(h.state.drainShort).toBe(0);
    expect(undrainHosts(h.state, ['a']).replaced).toEqual([]);
  });

  it('a scale past the room while a host is drained starts the rest at undrain, as its hint says', async () => {
    // Found by the h40ssh trial: `scale 4` with a host drained placed 3 and said "or sshcluster
    // undrain HOST for a drained one"; the undrain then started nothing (3/3).
    const h = harness({ workers: ['a', 'b', 'c'], nworkers: 1 });
    await startUp(h);
    drainHosts(h.state, ['a'], false);
    const r = await h.reconciler.scale(3);
    expect(r.desired).toBe(2);
    expect(h.state.drainShort).toBe(1);
    expect(undrainHosts(h.state, ['a']).replaced).toEqual(['a-0']);
    expect(h.state.desiredWorkers).toHaveLength(3);
    // A size no host can hold, drained or not, is not kept for later.
    drainHosts(h.state, ['a'], false);
    await h.reconciler.scale(5);
    expect(h.state.drainShort).toBe(1);
  });

  it('under adaptive, only retires (adaptive places on its own)', async () => {
    const h = harness({ workers: ['a', 'b'], nworkers: 2, initialWorkers: 2 });
    await startUp(h);
    expect(drainHosts(h.state, ['a'], false)).toEqual({
      unknown: [],
      unchanged: [],
      retired: ['a-0'],
      replaced: [],
      short: 0,
    });
    expect(h.state.desiredWorkers.map((w) => w.name)).toEqual(['b-0']);
  });
});

describe('applySpec', () => {
  it("adds a new host's workers, drops a removed host's, and launches with the new spec", async () => {
    const h = harness({ workers: ['a', 'b'] });
    await startUp(h);
    const old = h.state.spec;
    const next = {
      ...old,
      workerHosts: [
        { ...old.workerHosts[0]!, workerOptions: { ...old.workerHosts[0]!.workerOptions, nthreads: 8 } },
        testHost('c', 2),
      ],
    };
    const diff = diffSpecs(old, next, h.state.desiredWorkers, false);
    applySpec(h.state, next, diff);
    expect(h.state.desiredWorkers.map((w) => w.name)).toEqual(['a-0', 'c-0', 'c-1']);
    expect(h.state.hosts().map((x) => x.name)).toEqual(['n0', 'a', 'c']);
    await h.reconciler.links.connect('c');
    await h.reconciler.tick();
    await flush();
    expect(
      h
        .host('c')
        .running()
        .map((p) => p.spec.name),
    ).toEqual(['c-0', 'c-1']);
    expect(h.host('b').running()).toEqual([]);
    // b is remembered (the state file keeps it for `down`) until it has left, cleared.
    expect(h.state.formerHosts.map((x) => x.name)).toEqual(['b']);
    await h.reconciler.links.leave('b');
    expect(h.host('b').closed).toBe(true);
    expect(h.host('b').filesRemoved).toEqual([0]);
    expect(h.state.runners.has('b')).toBe(false);
    expect(h.state.formerHosts).toEqual([]);
    expect(diff.restart).toEqual([{ host: 'a', workers: ['a-0'], why: ['worker_options.nthreads 2 → 8'] }]);
  });

  it('counts an added host unreached until it connects (down from the state file need not reach it before)', async () => {
    const h = harness({ workers: ['a'] });
    await startUp(h);
    const old = h.state.spec;
    const next = { ...old, workerHosts: [...old.workerHosts, testHost('b', 1), testHost('c', 1)] };
    h.refuse.set('c', 'connection refused');
    applySpec(h.state, next, diffSpecs(old, next, h.state.desiredWorkers, false));
    expect([...h.state.unreached]).toEqual(['b', 'c']);
    await h.reconciler.links.connect('b');
    await h.reconciler.links.connect('c');
    expect([...h.state.unreached]).toEqual(['c']);
  });

  it('remembers nothing of a removed host that never connected: nothing of ours is there', () => {
    const h = harness({ workers: ['a', 'b'] }); // not started: no runner, no process
    const old = h.state.spec;
    const next = { ...old, workerHosts: [old.workerHosts[0]!] };
    applySpec(h.state, next, diffSpecs(old, next, h.state.desiredWorkers, false));
    expect(h.state.formerHosts).toEqual([]);
  });

  it("remembers a host's former TMPDIR (its files stay there until the teardown) and a restored one's", async () => {
    const h = harness({ workers: ['a', 'b'] });
    await startUp(h);
    const old = h.state.spec;
    const a = old.workerHosts[0]!;
    const moved = { ...a, env: { ...a.env, TMPDIR: '/scratch' } };
    const next = { ...old, workerHosts: [moved, old.workerHosts[1]!] };
    applySpec(h.state, next, diffSpecs(old, next, h.state.desiredWorkers, false));
    expect(h.state.formerHosts).toEqual([a]);
    expect(h.state.tmpdirsOf('a')).toEqual(['/scratch', a.env.TMPDIR]);
    expect(h.state.tmpdirsOf('b')).toEqual([old.workerHosts[1]!.env.TMPDIR]);
    // A roll that stopped puts a back: what its restarted workers wrote is under /scratch.
    restoreHost(h.state, old, 'a');
    expect(h.state.hostSpec('a')).toBe(a);
    expect(h.state.formerHosts).toEqual([a, moved]);
    expect(h.state.tmpdirsOf('a')).toEqual([a.env.TMPDIR, '/scratch']);
    // Nothing changed about b's TMPDIR: nothing to remember.
    const b2 = { ...old.workerHosts[1]!, setup: ['true'] };
    const again = { ...h.state.spec, workerHosts: [a, b2] };
    applySpec(h.state, again, diffSpecs(h.state.spec, again, h.state.desiredWorkers, false));
    expect(h.state.formerHosts.map((x) => x.name)).toEqual(['a', 'a']);
  });
});

describe('former hosts', () => {
  const spec = (workers: HostSpec[]) => ({ ...harness({ workers: [] }).state.spec, workerHosts: workers });
  it("lists the hosts to clear: the spec's, then the removed ones (the latest spec of each)", () => {
    const [a, b] = [testHost('a', 1), testHost('b', 1)];
    const b2 = { ...b, env: { TMPDIR: '/t2' } };
    const s = spec([a]);
    const former = withFormer(withFormer([], b, b2), b2, undefined);
    expect(former).toEqual([b, b2]);
    expect(hostsToClear(s, former).map((h) => [h.name, h.env.TMPDIR])).toEqual([
      ['n0', undefined],
      ['a', undefined],
      ['b', '/t2'],
    ]);
    expect(tmpdirsOn(s, former, 'b')).toEqual([undefined, '/t2']);
    expect(tmpdirsOn(s, former, 'a')).toEqual([undefined]);
    // The same host and TMPDIR again: one entry, the latest spec.
    const b3 = { ...b2, connect: { ...b2.connect, port: 2222 } };
    expect(withFormer(former, b3, undefined)).toEqual([b, b3]);
  });
});

describe('rollingRestart', () => {
  it('restarts one worker at a time, each registered before the next, so at most one is missing', async () => {
    const h = harness({ workers: ['a', 'b'], nworkers: 2 });
    await startUp(h);
    registersWhatRuns(h);
    await h.reconciler.tick();
    const pids = h.state.all().map((t) => t.pid);
    const names = h.state.desiredWorkers.map((w) => w.name);
    const { r, registeredAtRestart } = await roll(h, names);
    expect(r).toEqual({ kind: 'done', restarted: names });
    // Each replacement was registered before the next worker was retired.
    expect(registeredAtRestart).toEqual([4, 4, 4, 4]);
    expect(h.state.registered.size).toBe(4);
    for (const t of h.state.alive('worker')) expect(pids).not.toContain(t.pid);
  });

  it('stops at once at a worker whose host does not answer, not after the timeout, and leaves it alone', async () => {
    // Found by the h40ssh trial: `restart` with one host's sshd down waited 120 s for that
    // host's worker ("did not register within 120s") after retiring it.
    const h = harness({ workers: ['a', 'b'], nworkers: 1 });
    await startUp(h);
    registersWhatRuns(h);
    await h.reconciler.tick();
    h.refuse.set('b', 'connect ECONNREFUSED');
    h.host('b').drop('connection reset');
    await h.reconciler.tick();
    const t0 = h.clock.now();
    const restarts: string[] = [];
    const restartWorker = h.reconciler.restartWorker.bind(h.reconciler);
    h.reconciler.restartWorker = (n, o) => (restarts.push(n), restartWorker(n, o));
    const { r } = await roll(h, ['a-0', 'b-0']);
    expect(r).toMatchObject({ kind: 'stopped', restarted: ['a-0'], failed: 'b-0', notReached: [] });
    expect(r.kind === 'stopped' && r.reason).toBe(
      'its host b does not answer: not restarted (its workers start anew when it answers again)',
    );
    expect(restarts).toEqual(['a-0']);
    expect(h.clock.now() - t0).toBeLessThan(30_000);
  });

  it('with --max-unavailable 2, restarts two at a time', async () => {
    const h = harness({ workers: ['a', 'b'], nworkers: 2 });
    await startUp(h);
    registersWhatRuns(h);
    await h.reconciler.tick();
    const stopping: number[] = [];
    const restartWorker = h.reconciler.restartWorker.bind(h.reconciler);
    h.reconciler.restartWorker = async (n) => {
      const p = restartWorker(n);
      stopping.push(h.state.alive('worker').filter((t) => t.stopping).length);
      return p;
    };
    const lines: string[] = [];
    const { r, registeredAtRestart } = await roll(h, ['a-0', 'a-1', 'b-0', 'b-1'], 2, (l) => lines.push(l));
    expect(r.kind).toBe('done');
    // Each batch said as it begins and as it completes (registered), with how long it took.
    expect(lines).toEqual([
      'restarting a-0, a-1 (2 of 4)',
      expect.stringMatching(/^restarted 2\/4: a-0, a-1 \(\d+ s\)$/),
      'restarting b-0, b-1 (4 of 4)',
      expect.stringMatching(/^restarted 4\/4: b-0, b-1 \(\d+ s\)$/),
    ]);
    // Two retire together; the next two only once both replacements registered.
    expect(stopping).toEqual([1, 2, 1, 2]);
    expect(registeredAtRestart).toEqual([4, 4, 4, 4]);
  });

  it('skips, and names, the workers a drain retired while it ran; it failed on them with "no worker named" (helper-27)', async () => {
    const h = harness({ workers: ['a', 'b'], nworkers: 2 });
    await startUp(h);
    registersWhatRuns(h);
    await h.reconciler.tick();
    const restartWorker = h.reconciler.restartWorker.bind(h.reconciler);
    let drained = false;
    h.reconciler.restartWorker = async (n) => {
      if (!drained) ((drained = true), drainHosts(h.state, ['b'], false));
      return restartWorker(n);
    };
    const { r } = await roll(h, ['a-0', 'b-0', 'a-1', 'b-1']);
    expect(r).toEqual({ kind: 'done', restarted: ['a-0', 'a-1'], gone: ['b-0', 'b-1'] });
  });

  it('stops at the first replacement that does not register and leaves the rest as they were', async () => {
    const h = harness({ workers: ['a', 'b'], nworkers: 2 });
    await startUp(h);
    registersWhatRuns(
      h,
      (name) => name === 'a-0' && h.host('a').started.filter((p) => p.spec.name === 'a-0').length > 1,
    );
    await h.reconciler.tick();
    const before = new Map(h.state.alive('worker').map((t) => [t.desired.name, t.pid]));
    const { r } = await roll(h, ['a-0', 'a-1', 'b-0', 'b-1']);
    // 30 s of waiting for a-0, then the roll stops.
    expect(r).toMatchObject({ kind: 'stopped', restarted: [], failed: 'a-0', notReached: ['a-1', 'b-0', 'b-1'] });
    expect(r.kind === 'stopped' && r.reason).toBe('a-0 did not register within 30s');
    for (const n of ['a-1', 'b-0', 'b-1']) expect(h.state.processes.get(n)?.pid).toBe(before.get(n));
  });

  it('stops at once when a replacement exits, saying its last line', async () => {
    const h = harness({ workers: ['a'], nworkers: 2 });
    await startUp(h);
    registersWhatRuns(h);
    await h.reconciler.tick();
    h.onConnect = undefined;
    const restart = async (n: string) => {
      await h.reconciler.restartWorker(n);
      const p = h.host('a').running(n)[0]!;
      p.line('/opt/no/python3: python not found');
      p.die(127);
      return { kind: 'stopped' as const };
    };
    const done = rollingRestart(
      {
        state: h.state,
        clock: h.clock,
        signal: h.life.signal,
        restart,
        tick: () => h.reconciler.tick(),
        progress: () => {},
      },
      ['a-0', 'a-1'],
      { maxUnavailable: 1, timeoutMs: 30_000, pollMs: 500 },
    );
    await h.clock.advance(600);
    expect(await done).toEqual({
      kind: 'stopped',
      restarted: [],
      failed: 'a-0',
      reason: 'a-0 exited after its restart: /opt/no/python3: python not found',
      notReached: ['a-1'],
    });
  });
});
