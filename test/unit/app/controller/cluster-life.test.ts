// A running cluster's whole life over fake ports (hosts, scheduler, clock), stepped by
// hand: start-up and readiness, adaptive up and down, a user's scale, Ctrl-C teardown;
// and the faults: a host lost mid-start, a worker crash loop, the scheduler gone.
import { describe, expect, it } from 'vitest';
import { ClusterSession } from '../../../../src/app/controller/cluster-session.js';
import type { SchedulerClient } from '../../../../src/dask/scheduler-client.js';
import { EventBus, type ClusterEvent } from '../../../../src/events/types.js';
import { testSpec } from '../../config/spec-fixture.js';
import { FakeClock, FakeHost, FakeScheduler, flush } from '../../cluster/fakes.js';

interface Life {
  session: ClusterSession;
  clock: FakeClock;
  scheduler: FakeScheduler;
  hosts: Map<string, FakeHost>;
  events: ClusterEvent[];
  /** Hosts whose (re)connection is refused. */
  refuse: Set<string>;
  host(name: string): FakeHost;
  /** The scheduler lists every worker process that runs, idle (a worker registers as it starts). */
  sync(): void;
  /** Moves the clock on, `ms` at a time, the scheduler in step, until `p` settles. */
  until<T>(p: Promise<T>, ms?: number): Promise<T>;
  notices(): string[];
}

/** A cluster of scheduler host n0 and worker hosts n1, n2 (2 workers each at most). */
function life(o: { initialWorkers?: number; readyTimeoutMs?: number } = {}): Life {
  const clock = new FakeClock();
  const scheduler = new FakeScheduler();
  const hosts = new Map<string, FakeHost>();
  const refuse = new Set<string>();
  const events: ClusterEvent[] = [];
  const bus = new EventBus();
  bus.on((e) => events.push(e));
  const session = new ClusterSession({
    // A dashboard not on the scheduler host's loopback: nothing to forward (no server here).
    spec: testSpec({ workers: ['n1', 'n2'], nworkers: 2, dashboard: '10.0.0.9:8787' }),
    clusterId: 'c0ffee',
    bus,
    fanout: 8,
    requireAll: false,
    readyTimeoutMs: o.readyTimeoutMs ?? 60_000,
    initialWorkers: o.initialWorkers,
    clock,
    openShell: () => Promise.reject(new Error('no shell in this test')),
    connectHost: async (h) => {
      if (refuse.has(h.name)) throw new Error('connection refused');
      const host = new FakeHost(h.name);
      const old = hosts.get(h.name);
      if (old) for (const [pid, p] of old.remote) host.remote.set(pid, p);
      hosts.set(h.name, host);
      return host;
    },
    schedulerFor: () => scheduler as unknown as SchedulerClient,
  });
  const sync = () => {
    scheduler.registered.clear();
    for (const h of hosts.values())
      for (const p of h.running()) if (p.spec.name !== 'scheduler') scheduler.registered.add(p.spec.name);
    // Idle workers: the scheduler would close any of them.
    for (const n of scheduler.registered) scheduler.metrics.set(n, { executing: 0, memory: 0 });
  };
  const until = async <T>(p: Promise<T>, ms = 250): Promise<T> => {
    let done = false;
    const settled = p.finally(() => (done = true));
    settled.catch(() => undefined);
    for (let i = 0; !done; i++) {
      if (i > 2_000) throw new Error('never settled');
      sync();
      await clock.advance(ms);
    }
    return settled;
  };
  return {
    session,
    clock,
    scheduler,
    hosts,
    events,
    refuse,
    host: (n) => hosts.get(n)!,
    sync,
    until,
    notices: () => events.flatMap((e) => (e.kind === 'notice' ? [e.message] : [])),
  };
}

/** Worker processes running on the fake hosts, by name. */
function running(l: Life): string[] {
  return [...l.hosts.values()]
    .flatMap((h) => h.running().map((p) => p.spec.name))
    .filter((n) => n !== 'scheduler')
    .sort();
}

const ADAPTIVE = { minimum: 0, maximum: 4, intervalMs: 1_000, waitCount: 3, targetDurationMs: 5_000 };

describe('a running cluster over fake ports', () => {
  it('goes up, adapts up and down, takes a scale, and stops on Ctrl-C with nothing left', async () => {
    const l = life({ initialWorkers: 2 });
    await l.until(l.session.start());
    expect(l.events.some((e) => e.kind === 'cluster-up')).toBe(true);
    expect(running(l)).toEqual(['n1-0', 'n2-0']);

    // Adaptive up: the scheduler wants 4 workers.
    l.scheduler.target = 4;
    l.session.startAdaptive(ADAPTIVE);
    await l.until(
      waitFor(() => running(l).length === 4 && l.scheduler.registered.size === 4, l),
      1_000,
    );
    expect(l.session.state.desiredWorkers).toHaveLength(4);
    expect(l.events.some((e) => e.kind === 'adaptive-decision' && e.decision === 'up')).toBe(true);

    // Adaptive down: after wait_count steps recommending 1, three workers are retired.
    l.scheduler.target = 1;
    await l.until(
      waitFor(() => running(l).length === 1, l),
      1_000,
    );
    expect(l.session.state.desiredWorkers).toHaveLength(1);
    expect(l.scheduler.retireCalls.flat()).toHaveLength(3);

    // A user's scale: adaptive goes off and the size holds.
    const scaled = await l.until(l.session.userScale(3));
    expect(scaled).toMatchObject({ desired: 3, adaptiveOff: true });
    await l.until(waitFor(() => running(l).length === 3, l));
    l.scheduler.target = 0;
    await l.clock.advance(10_000);
    expect(running(l)).toHaveLength(3);

    // Ctrl-C: everything stops, nothing is left on any host.
    const result = await l.until(l.session.teardown({ reason: 'Ctrl-C', force: false }));
    expect(result.leftover).toEqual([]);
    expect(running(l)).toEqual([]);
    for (const h of l.hosts.values()) expect(h.remote.size).toBe(0);
  });

  it('a host lost mid-start: the cluster comes up without it, and says so', async () => {
    const l = life({ initialWorkers: 2 });
    const started = l.session.start();
    await flush();
    // n2 drops before its worker registers, and does not come back.
    l.refuse.add('n2');
    l.host('n2').drop('connection reset');
    await l.until(started);
    const up = l.events.find((e) => e.kind === 'cluster-up');
    expect(up).toMatchObject({ failedHosts: ['n2'], workers: [{ name: 'n1-0', address: 'tcp://n1-0:1' }] });
    await l.until(l.session.teardown({ reason: 'test', force: false }));
  });

  it('a worker in a crash loop is no longer restarted, and its host gets no new workers', async () => {
    const l = life({ initialWorkers: 2 });
    await l.until(l.session.start());
    for (let i = 0; i < 5; i++) {
      l.host('n1').running('n1-0')[0]?.die();
      await l.clock.advance(61_000);
    }
    expect(l.host('n1').running('n1-0')).toEqual([]);
    expect(l.notices().some((n) => n.includes('crash-looping') || n.includes('not restarting it'))).toBe(true);
    await l.until(l.session.userScale(3));
    expect(l.session.state.desiredWorkers.map((w) => w.host).filter((h) => h === 'n1')).toHaveLength(1);
    await l.until(l.session.teardown({ reason: 'test', force: false }));
  });

  it('the scheduler gone: its exit is reported, it is not restarted, and teardown leaves nothing', async () => {
    const l = life({ initialWorkers: 2 });
    await l.until(l.session.start());
    const exit = l.session.schedulerExit();
    l.host('n0').running('scheduler')[0]!.die();
    await l.until(exit);
    await l.clock.advance(10_000);
    expect(l.host('n0').running('scheduler')).toEqual([]);
    const result = await l.until(l.session.teardown({ reason: 'scheduler exited', force: false }));
    expect(result.leftover).toEqual([]);
    expect(running(l)).toEqual([]);
  });
});

/** Resolves once `ok()` holds, checked as the clock moves (until() moves it). */
function waitFor(ok: () => boolean, l: Life): Promise<void> {
  return new Promise((resolve) => {
    const check = () => (ok() ? resolve() : l.clock.after(100, check));
    check();
  });
}
