// Start-up in the core (cluster/start-stop/start-up.ts, driven by cluster/cluster.ts) over fake
// ports: hosts, a scheduler, Dask's lines, the dashboard's forward and a clock stepped by
// hand. It connects through the fan-out, confirms readiness with the scheduler, follows
// a dashboard that moved, forwards it, says the cluster is up, then ticks on its own;
// --require-all and "no worker started" fail it with nothing left running.
import { describe, expect, it } from 'vitest';
import { Cluster, type AdaptiveHandle } from '../../../../src/cluster/cluster.js';
import type { DaskPort } from '../../../../src/cluster/ports.js';
import type { PreviousCluster } from '../../../../src/cluster/start-stop/readopt.js';
import type { ExpectedError } from '../../../../src/errors.js';
import type { ClusterEvent } from '../../../../src/events/types.js';
import { testHost, testSpec } from '../../config/spec-fixture.js';
import { FakeClock, FakeHost, FakeScheduler, flush } from '../fakes.js';

interface Up {
  cluster: Cluster;
  clock: FakeClock;
  scheduler: FakeScheduler;
  hosts: Map<string, FakeHost>;
  events: ClusterEvent[];
  /** Hosts whose connection is refused. */
  refuse: Set<string>;
  /** How many connections the fan-out let run at once, at most. */
  widest: () => number;
  /** The ports each dashboard forward was asked for. */
  forwards: number[][];
  /** Hosts no runner reaches that were cleared (a dead controller's apply removed them). */
  cleared: string[];
  until<T>(p: Promise<T>): Promise<T>;
}

/** Dask's lines as the fakes print them: "dashboard at HOST:PORT", "registered". */
const dask = (scheduler: FakeScheduler): DaskPort => ({
  scheduler: () => scheduler,
  dashboardAt: (line) => {
    const m = /^dashboard at (.*):(\d+)$/.exec(line);
    return m ? { host: m[1], port: Number(m[2]) } : undefined;
  },
  registered: (line) => line === 'registered',
  describeExit: (exit) => `exited with code ${exit.code}`,
});

function up(
  o: {
    requireAll?: boolean;
    dashboard?: string;
    forwardUrl?: string;
    previous?: PreviousCluster;
    /** PIDs of ours already running on a host when it connects (a dead controller's). */
    left?: Record<string, number[]>;
  } = {},
): Up {
  const clock = new FakeClock();
  const scheduler = new FakeScheduler();
  const hosts = new Map<string, FakeHost>();
  const refuse = new Set<string>();
  const events: ClusterEvent[] = [];
  const forwards: number[][] = [];
  const cleared: string[] = [];
  let open = 0;
  let widest = 0;
  const cluster = new Cluster({
    spec: testSpec({ workers: ['n1', 'n2'], dashboard: o.dashboard ?? '10.0.0.9:8787' }),
    address: 'tcp://n0:8786',
    dashboardUrl: 'http://n0:8787/status',
    clock,
    emit: (e) => events.push(e),
    connect: async (h) => {
      if (refuse.has(h.name)) throw new Error('connection refused');
      const host = new FakeHost(h.name);
      for (const pid of o.left?.[h.name] ?? []) host.remote.set(pid, { pid, ppid: 1, pgid: pid });
      hosts.set(h.name, host);
      return host;
    },
    specFor: (d) => ({ name: d.name, host: d.host, role: d.role, argv: ['dask'], env: {} }),
    previous: o.previous,
    clearHost: async (h) => {
      cleared.push(h.name);
      return { stopped: [], forced: [], left: [] };
    },
    adaptiveLoop: (): AdaptiveHandle => {
      throw new Error('not adaptive in this test');
    },
    startUp: {
      limit: async (task) => {
        widest = Math.max(widest, ++open);
        try {
          return await task();
        } finally {
          open--;
        }
      },
      requireAll: o.requireAll ?? false,
      readyTimeoutMs: 30_000,
      tickMs: 2_000,
      dask: dask(scheduler),
      forwardDashboard: async ({ ports }) => {
        forwards.push(ports);
        return { url: o.forwardUrl, close: () => undefined };
      },
    },
  });
  const until = async <T>(p: Promise<T>): Promise<T> => {
    let done = false;
    const settled = p.finally(() => (done = true));
    settled.catch(() => undefined);
    for (let i = 0; !done; i++) {
      if (i > 1_000) throw new Error('never settled');
      // A worker registers as soon as it runs.
      for (const h of hosts.values())
        for (const p of h.running()) if (p.spec.role === 'worker') scheduler.registered.add(p.spec.name);
      await clock.advance(250);
    }
    return settled;
  };
  return { cluster, clock, scheduler, hosts, events, refuse, widest: () => widest, forwards, cleared, until };
}

const running = (u: Up) =>
  [...u.hosts.values()]
    .flatMap((h) => h.running())
    .map((p) => p.spec.name)
    .sort();

describe('start-up in the core', () => {
  it('connects every host, confirms readiness with the scheduler, says the cluster is up, then ticks on its own', async () => {
    const u = up();
    await u.until(u.cluster.start());
    expect(running(u)).toEqual(['n1-0', 'n2-0', 'scheduler']);
    expect(u.widest()).toBeGreaterThan(1); // hosts connect at once, through the fan-out
    const cluster = u.events.find((e) => e.kind === 'cluster-up');
    expect(cluster).toEqual({
      kind: 'cluster-up',
      name: 't',
      schedulerAddress: 'tcp://n0:8786',
      dashboardUrl: 'http://n0:8787/status',
      workers: [
        { name: 'n1-0', address: 'tcp://n1-0:1' },
        { name: 'n2-0', address: 'tcp://n2-0:1' },
      ],
      failedHosts: [],
    });
    expect(u.cluster.client).toBe(u.scheduler);
    // A dashboard not on the scheduler host's loopback is not forwarded.
    expect(u.forwards).toEqual([]);
    // The periodic tick: a worker that dies is started again with no one asking.
    u.hosts.get('n1')!.running('n1-0')[0]!.die(0);
    await u.clock.advance(20_000);
    expect(u.hosts.get('n1')!.running('n1-0')).toHaveLength(1);
    await u.until(u.cluster.teardown({ reason: 'test', force: false }));
    expect(running(u)).toEqual([]);
  });

  it("follows a dashboard the scheduler moved, and forwards it from this machine's port", async () => {
    const u = up({ dashboard: ':8787', forwardUrl: 'http://127.0.0.1:40001/status' });
    const started = u.until(u.cluster.start());
    await flush();
    u.hosts.get('n0')!.running('scheduler')[0]!.line('dashboard at 127.0.0.1:8790');
    await started;
    expect(u.events).toContainEqual({
      kind: 'notice',
      level: 'warning',
      message: 'the dashboard port was taken; the scheduler serves it on 8790',
    });
    expect(u.forwards).toEqual([[8790]]);
    expect(u.cluster.dashboard).toBe('http://127.0.0.1:40001/status');
    expect(u.events.find((e) => e.kind === 'cluster-up')).toMatchObject({
      dashboardUrl: 'http://127.0.0.1:40001/status',
    });
    await u.until(u.cluster.teardown({ reason: 'test', force: false }));
  });

  it('re-adopts what a dead controller left, keeps its first start, and clears the host its apply had removed', async () => {
    const u = up({
      previous: {
        schedulerAddress: 'tcp://n0:8786',
        startedAt: new Date(500_000).toISOString(),
        processes: [
          { name: 'scheduler', host: 'n0', role: 'scheduler', pid: 501 },
          { name: 'n1-0', host: 'n1', role: 'worker', pid: 601 },
          { name: 'n2-0', host: 'n2', role: 'worker', pid: 701 }, // died meanwhile
          { name: 'old-0', host: 'old', role: 'worker', pid: 801 },
        ],
        formerHosts: [testHost('old')],
      },
      left: { n0: [501], n1: [601] },
    });
    u.scheduler.registered.add('old-0');
    await u.until(u.cluster.start());
    expect(u.hosts.get('n0')!.started.map((p) => p.remotePid)).toEqual([501]);
    expect(u.hosts.get('n1')!.started.map((p) => p.remotePid)).toEqual([601]);
    expect(u.hosts.get('n2')!.running('n2-0')).toHaveLength(1);
    const notices = u.events.flatMap((e) => (e.kind === 'notice' ? [e.message] : []));
    expect(notices).toContain('re-adopted 2 process(es) from the state file, started 1');
    expect(u.cluster.startedAt).toBe(500_000);
    // The removed host's worker retired through the scheduler first (data moved), then the host cleared.
    expect(u.scheduler.retireCalls).toEqual([['tcp://old-0:1']]);
    expect(u.cleared).toEqual(['old']);
    expect(notices).toContain('old left the cluster (an interrupted apply had removed it)');
    expect(u.cluster.state.formerHosts).toEqual([]);
    await u.until(u.cluster.teardown({ reason: 'test', force: false }));
  });

  it('owes the workers an interrupted apply had not restarted, of those still wanted, and keeps them in pendingRoll', () => {
    const previous = { schedulerAddress: 'tcp://n0:8786', processes: [], pendingRoll: ['n1-0', 'gone-0'] };
    const u = up({ previous });
    expect(u.cluster.owedRoll()).toEqual(['n1-0']);
    expect([...u.cluster.state.pendingRoll]).toEqual(['n1-0']);
    expect(up().cluster.owedRoll()).toEqual([]);
  });

  it('--require-all: a failed host fails the start-up, and what started is stopped', async () => {
    const u = up({ requireAll: true });
    u.refuse.add('n2');
    const err = await u.until(u.cluster.start()).then(
      () => undefined,
      (e: unknown) => e as ExpectedError,
    );
    expect(err?.message).toMatch(/^--require-all: 1 host\(s\) failed: n2$/);
    expect(running(u)).toEqual([]);
    expect(u.events.some((e) => e.kind === 'cluster-up')).toBe(false);
  });

  it('no worker started: the start-up fails with each host and why, and the scheduler goes too', async () => {
    const u = up();
    u.refuse.add('n1');
    u.refuse.add('n2');
    const err = await u.until(u.cluster.start()).then(
      () => undefined,
      (e: unknown) => e as ExpectedError,
    );
    expect(err?.message).toMatch(/^no worker started \(2 wanted\); failed hosts:\n {2}n1: .*connection refused/);
    expect(err?.exitCode).toBe(1);
    expect(running(u)).toEqual([]);
  });

  it('moves new, starting, up, stopping, stopped; once stopping it refuses every change, and nothing starts', async () => {
    const u = up();
    expect(u.cluster.phase).toBe('new');
    const started = u.until(u.cluster.start());
    expect(u.cluster.phase).toBe('starting');
    await started;
    expect(u.cluster.phase).toBe('up');
    const stopping = u.cluster.teardown({ reason: 'sshcluster down', force: false });
    expect(u.cluster.phase).toBe('stopping');
    const refused = (p: () => Promise<unknown>) =>
      p().then(
        () => 'done',
        (e: unknown) => (e as ExpectedError).message,
      );
    const roll = { maxUnavailable: 1, timeoutMs: 10_000 };
    expect(await refused(() => u.cluster.userScale(5))).toBe('scale: the cluster is stopping; nothing was changed');
    expect(await refused(() => u.cluster.restartWorker('n1-0'))).toBe(
      'restart: the cluster is stopping; nothing was changed',
    );
    expect(await refused(() => u.cluster.changes.apply(testSpec({ workers: ['n1', 'n2', 'n3'] }), roll))).toBe(
      'apply: the cluster is stopping; nothing was changed',
    );
    expect(await refused(() => u.cluster.changes.drain(['n1'], false))).toBe(
      'drain: the cluster is stopping; nothing was changed',
    );
    expect(await refused(() => u.cluster.changes.restart(['n1-0'], roll))).toBe(
      'restart: the cluster is stopping; nothing was changed',
    );
    expect(() => u.cluster.startAdaptive({ minimum: 0, maximum: 4 } as never)).toThrow(
      'adapt: the cluster is stopping; nothing was changed',
    );
    expect(u.cluster.state.desiredWorkers).toHaveLength(2);
    expect(u.hosts.has('n3')).toBe(false);
    await u.until(stopping);
    expect(u.cluster.phase).toBe('stopped');
    expect(running(u)).toEqual([]);
  });

  it('a stop during start-up ends the readiness wait: nothing is said up', async () => {
    const u = up();
    u.scheduler.down = true; // never answers
    const started = u.cluster.start().then(
      () => 'up',
      (e: unknown) => String(e),
    );
    await flush();
    await u.until(u.cluster.teardown({ reason: 'Ctrl-C', force: false }));
    expect(await started).toMatch(/start-up was stopped/);
    expect(running(u)).toEqual([]);
    expect(u.events.some((e) => e.kind === 'cluster-up')).toBe(false);
  });
});
