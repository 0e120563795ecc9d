// The reconcile loop stepped by hand over fake hosts, a fake scheduler and a fake clock:
// start-up, one tick at a time, a worker dying, a host dropping and coming back, the
// scheduler dying.
import { describe, expect, it } from 'vitest';
import { flush, harness, startUp } from '../harness.js';

describe('reconciler: the tick', () => {
  it('starts the scheduler and every desired worker on the first tick', async () => {
    const h = harness({ workers: ['a', 'b'] });
    await startUp(h);
    expect(
      h
        .host('n0')
        .running()
        .map((p) => p.spec.name),
    ).toEqual(['scheduler']);
    expect(
      h
        .host('a')
        .running()
        .map((p) => p.spec.name),
    ).toEqual(['a-0']);
    expect(
      h
        .host('b')
        .running()
        .map((p) => p.spec.name),
    ).toEqual(['b-0']);
    expect(h.state.registered).toEqual(
      new Map([
        ['a-0', 'tcp://a-0:1'],
        ['b-0', 'tcp://b-0:1'],
      ]),
    );
  });

  it('starts nothing once the teardown has begun during a tick (it stopped a worker while the tick waited)', async () => {
    // Found by the h40ssh trial: a tick waiting on a reconnect (an unreachable host) went
    // on after `down` had stopped a worker, started it again on a runner the teardown then
    // closed, and left it running after "verified: no process of this cluster is left".
    const h = harness({ workers: ['a'] });
    await startUp(h);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const list = h.scheduler.workers.bind(h.scheduler);
    h.scheduler.workers = async () => (await gate, list());
    const tick = h.reconciler.tick();
    await flush();
    // What the teardown does meanwhile: the life ends, the worker is stopped as asked.
    h.life.abort();
    const t = h.state.processes.get('a-0')!;
    t.stopping = true;
    await t.proc.stop(0);
    await flush();
    release();
    await tick;
    await h.clock.advance(10_000);
    expect(h.host('a').started.map((p) => p.spec.name)).toEqual(['a-0']);
    expect(h.host('a').running()).toEqual([]);
  });

  it("keeps a process's first exception line, which a long traceback pushes out of its tail", async () => {
    const h = harness({ workers: ['a'] });
    await startUp(h);
    const p = h.host('n0').running()[0]!;
    p.line('2026-11-26 12:00:00 - distributed.scheduler - INFO - State start');
    p.line('OSError: [Errno 98] Address already in use');
    for (let i = 0; i < 40; i++) p.line(`  File "x.py", line ${i}`);
    p.line('RuntimeError: Scheduler failed to start.');
    const t = h.state.processes.get('scheduler')!;
    expect(t.firstError).toBe('OSError: [Errno 98] Address already in use');
    expect(t.tail).not.toContain('OSError: [Errno 98] Address already in use');
  });

  it('runs one tick at a time: requests during a tick add one follow-up, not one each', async () => {
    const h = harness({ workers: ['a'] });
    await startUp(h);
    let passes = 0;
    const workers = h.scheduler.workers.bind(h.scheduler);
    h.scheduler.workers = async () => (passes++, workers());
    const first = h.reconciler.tick();
    const more = [h.reconciler.tick(), h.reconciler.tick(), h.reconciler.tick()];
    await Promise.all([first, ...more]);
    expect(passes).toBe(2);
    await h.reconciler.tick();
    expect(passes).toBe(3);
  });

  it('reports a failed tick and goes on with the next', async () => {
    const h = harness({ workers: ['a'] });
    await startUp(h);
    const desired = h.state.desired.bind(h.state);
    h.state.desired = () => {
      h.state.desired = desired;
      throw new Error('boom');
    };
    await h.reconciler.tick();
    expect(h.notices()).toContain('reconcile step failed: Error: boom');
    h.host('a').running('a-0')[0]!.die();
    await h.clock.advance(60_000);
    expect(h.host('a').running('a-0')).toHaveLength(1);
  });

  it('ticks on its own every interval until the cluster is torn down, and starts nothing after', async () => {
    const h = harness({ workers: ['a'] });
    await startUp(h);
    let passes = 0;
    const workers = h.scheduler.workers.bind(h.scheduler);
    h.scheduler.workers = async () => (passes++, workers());
    h.reconciler.every(2_000);
    await h.clock.advance(6_000);
    expect(passes).toBe(3);
    h.life.abort();
    h.state.desiredWorkers.push({ name: 'a-1', host: 'a' });
    await h.clock.advance(6_000);
    await h.reconciler.tick();
    expect(passes).toBe(3);
    expect(h.host('a').running('a-1')).toEqual([]);
  });
});

describe('reconciler: a worker dying', () => {
  it('is restarted after a back-off that doubles, not before', async () => {
    const h = harness({ workers: ['a'] });
    await startUp(h);
    h.host('a').running('a-0')[0]!.die();
    await flush();
    expect(h.notices()).toContain('a-0 on a exited; restart 1 in 1s');
    await h.reconciler.tick();
    expect(h.host('a').running('a-0')).toEqual([]);
    await h.clock.advance(999);
    expect(h.host('a').running('a-0')).toEqual([]);
    await h.clock.advance(20); // the wake-up is due (1 s + slack)
    expect(h.host('a').running('a-0')).toHaveLength(1);

    h.host('a').running('a-0')[0]!.die();
    await flush();
    expect(h.notices()).toContain('a-0 on a exited; restart 2 in 2s');
    await h.clock.advance(1_500);
    expect(h.host('a').running('a-0')).toEqual([]);
    await h.clock.advance(600);
    expect(h.host('a').running('a-0')).toHaveLength(1);
    expect(h.state.supervisor.status('a-0').restarts).toBe(2);
  });

  it('stops being restarted once crash-looping, and its host is degraded and gets no new workers', async () => {
    const h = harness({ workers: ['a', 'b'], nworkers: 2, initialWorkers: 1 });
    await startUp(h);
    const victim = h.state.desiredWorkers[0]!;
    for (let i = 0; i < 5; i++) {
      h.host(victim.host).running(victim.name)[0]!.die();
      await h.clock.advance(61_000);
    }
    expect(h.host(victim.host).running(victim.name)).toEqual([]);
    expect(h.state.health.state(victim.host)?.kind).toBe('degraded');
    expect(h.notices().some((n) => n.includes('crash-looping') || n.includes('not restarting it'))).toBe(true);
    await h.reconciler.scale(2);
    const added = h.state.desiredWorkers[1]!;
    expect(added.host).not.toBe(victim.host);
  });

  it('keeps new workers off its host while its restarted worker has not registered, and allows them once it has', async () => {
    // The tie (one worker each) would go to the first host, a.
    const h = harness({ workers: ['a', 'b'], nworkers: 2, initialWorkers: 2 });
    await startUp(h);
    expect(h.state.desiredWorkers.map((w) => w.host)).toEqual(['a', 'b']);
    h.host('a').running('a-0')[0]!.die();
    h.scheduler.registered.delete('a-0');
    await h.clock.advance(1_100);
    expect(h.host('a').running('a-0')).toHaveLength(1);
    expect(h.state.supervisor.status('a-0').state).toBe('running');
    await h.reconciler.scale(3);
    expect(h.state.desiredWorkers.map((w) => w.name)).toEqual(['a-0', 'b-0', 'b-1']);

    h.scheduler.registered.add('a-0');
    await h.reconciler.tick();
    await h.reconciler.scale(4);
    expect(h.state.desiredWorkers.map((w) => w.name)).toEqual(['a-0', 'b-0', 'b-1', 'a-1']);
  });
});

describe('reconciler: start-up', () => {
  it('does not retry a host that failed to connect until start-up is over, then does', async () => {
    const h = harness({ workers: ['a', 'b'] });
    h.refuse.set('b', 'connect ETIMEDOUT');
    await Promise.all(h.state.hosts().map((x) => h.reconciler.links.connect(x.name)));
    let connects = 0;
    h.onConnect = () => void connects++;
    h.refuse.delete('b');
    await h.clock.advance(5_000); // b's back-off (1 s) is long over
    await h.reconciler.tick();
    expect(h.hosts.get('b')).toBeUndefined();
    h.reconciler.startupDone();
    await h.reconciler.tick();
    expect(connects).toBe(1);
    expect(h.host('b').running('b-0')).toHaveLength(1);
  });
});

describe('reconciler: a host dropping and coming back', () => {
  it('says why a host dropped without its name twice (SSH errors start with it; the event and status name the host)', async () => {
    const h = harness({ workers: ['a'] });
    await startUp(h);
    h.host('a').drop('a: a:22 stopped answering (keepalive)');
    await flush();
    expect(h.events).toContainEqual({
      kind: 'host-state',
      host: 'a',
      state: 'unreachable',
      reason: 'a:22 stopped answering (keepalive)',
    });
  });

  it('marks it unreachable, reconnects after the back-off, stops what the old session left, and starts its worker again', async () => {
    const h = harness({ workers: ['a', 'b'] });
    await startUp(h);
    h.reconciler.every(2_000); // a failed reconnect is retried by the periodic tick
    const old = h.host('a');
    const leftPid = old.running('a-0')[0]!.remotePid;
    h.refuse.set('a', 'connect ECONNREFUSED');
    old.drop();
    await flush();
    expect(h.events).toContainEqual({
      kind: 'host-state',
      host: 'a',
      state: 'unreachable',
      reason: 'connection reset',
    });
    expect(h.state.usable('a')).toBe(false);
    await h.clock.advance(1_100); // reconnect back-off 1 s: refused, next try 2 s later
    expect(h.events).toContainEqual({
      kind: 'host-state',
      host: 'a',
      state: 'unreachable',
      reason: 'connect ECONNREFUSED',
    });
    expect(h.host('b').running('b-0')).toHaveLength(1); // the other host is left alone
    h.refuse.delete('a');
    await h.clock.advance(1_000);
    expect(h.host('a')).toBe(old); // not due yet
    await h.clock.advance(2_000); // due, and the periodic tick comes

    const back = h.host('a');
    expect(back).not.toBe(old);
    expect(back.stopped).toEqual([leftPid]);
    expect(h.notices()).toContain('a: stopped 1 process(es) left from the dropped connection');
    expect(h.events).toContainEqual({ kind: 'host-state', host: 'a', state: 'running' });
    expect(back.running('a-0')).toHaveLength(1);
  });
});

describe('reconciler: the scheduler dying', () => {
  it('is not restarted after start-up (its death ends the cluster)', async () => {
    const h = harness({ workers: ['a'] });
    await startUp(h);
    h.host('n0').running('scheduler')[0]!.die();
    await h.clock.advance(120_000);
    await h.reconciler.tick();
    expect(h.host('n0').running('scheduler')).toEqual([]);
  });

  it('keeps the last worker list while the scheduler does not answer, so no worker is thought gone', async () => {
    const h = harness({ workers: ['a', 'b'] });
    await startUp(h);
    h.scheduler.down = true;
    await h.reconciler.tick();
    expect([...h.state.registered.keys()].sort()).toEqual(['a-0', 'b-0']);
    expect(h.host('a').running('a-0')).toHaveLength(1);
  });

  it('is started again during start-up when it died before the cluster was up', async () => {
    const h = harness({ workers: ['a'] });
    await Promise.all(h.state.hosts().map((x) => h.reconciler.links.connect(x.name)));
    await h.reconciler.tick();
    h.host('n0').running('scheduler')[0]!.exit(0);
    await flush();
    await h.reconciler.tick();
    expect(h.host('n0').running('scheduler')).toHaveLength(1);
  });
});
