// `adapt` refuses harmful values and says what it did (issue 11, #4): an interval that
// makes the loop spin, cores/memory maxima below one worker, a target_duration the
// running scheduler cannot take, and `scale` turning adaptive off.
import { CommanderError } from 'commander';
import { afterEach, describe, expect, it } from 'vitest';
import { adaptiveRefusal } from '../../../../src/adaptive/limits.js';
import { adaptiveSettingsText } from '../../../../src/adaptive/settings-text.js';
import type { ClusterSession } from '../../../../src/app/controller/cluster-session.js';
import { ClusterSession as Session } from '../../../../src/app/controller/cluster-session.js';
import { adapt } from '../../../../src/app/controller/adapt-session.js';
import { adaptiveStatus } from '../../../../src/app/controller/adaptive-status.js';
import { controlApi } from '../../../../src/app/controller/control-api.js';
import { Cluster } from '../../../../src/cluster/cluster.js';
import { ClusterState } from '../../../../src/cluster/cluster-state.js';
import { systemClock } from '../../../../src/app/system-clock.js';
import { buildProgram } from '../../../../src/cli/program.js';
import { parseHostFile } from '../../../../src/config/load.js';
import type { AdaptiveSpec } from '../../../../src/config/spec.js';
import { UsageError } from '../../../../src/errors.js';
import { EventBus, type ClusterEvent } from '../../../../src/events/types.js';
import { testContext, type TestContext } from '../context-fixture.js';
import { configErrorOf, makeCtx } from '../../fixtures/config/ctx.js';
import { testSpec } from '../../config/spec-fixture.js';

const spec = (over: Partial<AdaptiveSpec> = {}): AdaptiveSpec => ({
  minimum: 0,
  maximum: 10,
  intervalMs: 1000,
  waitCount: 3,
  targetDurationMs: 5000,
  ...over,
});
const worker = { nthreads: 2, memoryBytes: 4e9 };

describe('adaptive limits (pure)', () => {
  it('refuses an interval under 100ms, and maxima below one worker', () => {
    expect(adaptiveRefusal(spec({ intervalMs: 0 }), worker)?.message).toBe(
      '--interval 0ms is below the minimum of 100ms',
    );
    expect(adaptiveRefusal(spec({ maximumCores: 1 }), worker)?.message).toBe(
      "--maximum-cores 1 is less than one worker's 2 threads: adaptive could never keep a worker",
    );
    expect(adaptiveRefusal(spec({ maximumMemory: 1e9 }), worker)?.message).toMatch(
      /^--maximum-memory 954M \(1000000000 bytes\) is less than one worker's memory limit, 3\.7G/,
    );
  });
  it('takes the edges and what cannot be counted', () => {
    expect(adaptiveRefusal(spec({ intervalMs: 100, maximumCores: 2, maximumMemory: 4e9 }), worker)).toBeUndefined();
    expect(adaptiveRefusal(spec({ maximumMemory: 1 }), { nthreads: 2, memoryBytes: 0 })).toBeUndefined();
  });
});

describe('sshcluster adapt flags', () => {
  let ctx: TestContext;
  afterEach(() => ctx.cleanup());
  it.each([['0'], ['50ms'], ['0.05s']])(
    '--interval %s is refused before anything is asked of the cluster (exit 2)',
    async (value) => {
      ctx = testContext();
      const err = await buildProgram(ctx, () => undefined)
        .parseAsync(['node', 'sshcluster', 'adapt', '--interval', value])
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(err).toBeInstanceOf(CommanderError);
      expect(ctx.err()).toContain(
        `sshcluster: option '--interval <duration>' argument '${value}' is invalid. expected at least 100ms (Dask's default is 1s)`,
      );
    },
  );

  // Before: `adapt --off --min 2` turned adaptive off and dropped --min without a word;
  // `adapt --off --dry-run` turned it off for real.
  const run = (...args: string[]) =>
    buildProgram(ctx, () => undefined)
      .parseAsync(['node', 'sshcluster', 'adapt', ...args])
      .then(
        () => undefined,
        (e: unknown) => e,
      );
  it.each([
    [['--min', '2'], '--min'],
    [['--max', '5'], '--max'],
    [['--interval', '2s'], '--interval'],
    [['--wait-count', '4'], '--wait-count'],
    [['--target-duration', '10s'], '--target-duration'],
    [['--minimum-cores', '2'], '--minimum-cores'],
    [['--maximum-cores', '8'], '--maximum-cores'],
    [['--minimum-memory', '1GiB'], '--minimum-memory'],
    [['--maximum-memory', '8GiB'], '--maximum-memory'],
    [['--min', '1', '--max', '3', '--dry-run'], '--min, --max'],
  ])('--off with %j is refused (exit 2) before any cluster is looked for', async (flags, given) => {
    ctx = testContext();
    const err = await run('--off', ...flags);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).exitCode).toBe(2);
    expect((err as UsageError).message).toBe(
      `adapt: --off turns adaptive scaling off, so it takes none of the flags that set how it scales (given: ${given})`,
    );
    expect((err as UsageError).hint).toContain('sshcluster scale N');
  });

  it('--off with --dry-run is refused (exit 2): a dry run changes nothing, --off would', async () => {
    ctx = testContext();
    const err = await run('--dry-run', '--off');
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).exitCode).toBe(2);
    expect((err as UsageError).message).toBe(
      'adapt: --dry-run shows what one adaptive step would do; with --off there is no step to show',
    );
  });

  it('--off alone goes on to find the cluster', async () => {
    ctx = testContext();
    const err = await run('--off');
    expect(err).not.toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(/no cluster/i);
  });
});

describe('host file adaptive: section', () => {
  const fail = (yaml: string) => configErrorOf(() => parseHostFile(yaml, 'hosts.yaml', makeCtx()));
  it('refuses an interval under 100ms at its position', () => {
    expect(fail('hosts: [a, b]\nadaptive: {interval: 10ms}\n').message).toBe(
      "hosts.yaml:2:22 adaptive.interval: expected at least 100ms (Dask's default is 1s): a shorter interval makes the adaptive loop spin",
    );
  });
  it("refuses maximum_cores below one worker's nthreads", () => {
    const err = fail('hosts: [a, b]\nworker_options: {nthreads: 4}\nadaptive: {maximum: 3, maximum_cores: 3}\n');
    expect(err.message).toBe(
      "hosts.yaml:3:39 adaptive.maximum_cores: expected at least 4, one worker's nthreads: a smaller maximum_cores never keeps a worker",
    );
    expect(
      parseHostFile('hosts: [a, b]\nadaptive: {maximum_cores: 2}\n', 'hosts.yaml', makeCtx()).adaptive?.maximumCores,
    ).toBe(2);
  });
  it("refuses maximum_memory below one worker's memory_limit when that is a size (auto is known only once workers register)", () => {
    const err = fail(
      'hosts: [a, b]\nworker_options: {memory_limit: 4GiB}\nadaptive: {maximum: 3, maximum_memory: 1GiB}\n',
    );
    expect(err.message).toBe(
      "hosts.yaml:3:40 adaptive.maximum_memory: expected at least 4.0G (4294967296 bytes), one worker's memory_limit (4GiB): a smaller maximum_memory never keeps a worker",
    );
    expect(
      parseHostFile('hosts: [a, b]\nadaptive: {maximum_memory: 1GiB}\n', 'hosts.yaml', makeCtx()).adaptive
        ?.maximumMemory,
    ).toBe(2 ** 30);
    expect(
      parseHostFile(
        'hosts: [a, b]\nworker_options: {memory_limit: 1GiB}\nadaptive: {maximum_memory: 1GiB}\n',
        'hosts.yaml',
        makeCtx(),
      ).adaptive?.maximumMemory,
    ).toBe(2 ** 30);
  });
});

/** A ClusterSession whose core's reconciler is a fake: adapt and scale run the real session and core code. */
function fakeSession(
  adaptive?: AdaptiveSpec,
  registered: { name: string; nthreads: number; memoryLimit: number }[] = [],
) {
  const events: ClusterEvent[] = [];
  const bus = new EventBus();
  bus.on((e) => events.push(e));
  const scaled: number[] = [];
  const spec = { ...testSpec({ workers: ['n1', 'n2'] }), ...(adaptive ? { adaptive } : {}) };
  const scheduler = {
    identityOrWorkers: async () => ({ address: '', services: {}, workers: registered }),
    adaptiveTarget: async () => 0,
    demand: async () => undefined,
  };
  // The core's private fields behind its state, adaptive, client and signal getters, and its ports.
  const core = Object.assign(Object.create(Cluster.prototype) as object, {
    scheduler,
    state: new ClusterState(spec),
    clock: systemClock,
    life: new AbortController(),
    loop: undefined as ClusterSession['adaptive'],
    reconciler: { scale: async (n: number) => (scaled.push(n), { desired: n }), outcomes: async () => new Map() },
    p: { emit: (e: ClusterEvent) => bus.emit(e), adaptiveLoop: (a: AdaptiveSpec) => session.adaptiveLoop(a) },
  });
  // spec is read from the core's state (a getter on the prototype).
  const s = Object.assign(Object.create(Session.prototype) as object, {
    o: { bus },
    clock: systemClock,
    core,
    // The session's private field behind its client getter: the core's client.
    scheduler,
    daskVersion: async () => '2022.12.1',
  });
  const session = s as unknown as ClusterSession;
  return { session, core, events, scaled };
}

describe('the controller side of adapt and scale', () => {
  const sessions: ClusterSession[] = [];
  afterEach(() => sessions.splice(0).forEach((s) => s.adaptive?.stop()));

  it('refuses --maximum-cores below one worker (nthreads 2) as a usage error, leaving adaptive as it was', async () => {
    const { session } = fakeSession();
    const err = await adapt(session, { dryRun: false, spec: { maximumCores: 1 } }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).exitCode).toBe(2);
    expect((err as UsageError).message).toContain("--maximum-cores 1 is less than one worker's 2 threads");
    expect(session.adaptive).toBeUndefined();
  });

  it("with memory_limit auto, refuses --maximum-memory below the registered workers' limit, and shows the bounds it takes", async () => {
    const { session } = fakeSession(undefined, [{ name: 'n1-0', nthreads: 2, memoryLimit: 4e9 }]);
    sessions.push(session);
    expect(session.spec.workerHosts[0]!.workerOptions.memoryLimit).toBe('auto');
    const err = await adapt(session, { dryRun: false, spec: { maximumMemory: 1e6 } }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toContain(
      "--maximum-memory 977K (1000000 bytes) is less than one worker's memory limit, 3.7G: adaptive could never keep a worker",
    );
    expect(session.adaptive).toBeUndefined();
    await adapt(session, { dryRun: false, spec: { maximum: 4, maximumMemory: 8e9, minimumCores: 2 } });
    expect(adaptiveStatus(session.adaptive!)).toMatchObject({ maximumMemory: 8e9, minimumCores: 2 });
    expect(adaptiveStatus(session.adaptive!)).not.toHaveProperty('maximumCores');
  });

  it('warns in its reply that a running scheduler keeps its target_duration, and reports the one in use', async () => {
    const { session, events } = fakeSession(spec({ targetDurationMs: 5000 }));
    sessions.push(session);
    const r = await adapt(session, { dryRun: false, spec: { targetDurationMs: 10_000 } });
    expect(r.warnings).toEqual([
      expect.stringContaining('the running scheduler keeps 5s, not 10s'),
      'maximum 10: the hosts have 2 worker slots (max_workers), so at most 2 workers can be placed',
    ]);
    expect(r.spec?.targetDurationMs).toBe(5000);
    expect(events).toContainEqual(
      expect.objectContaining({ kind: 'notice', level: 'warning', message: r.warnings![0] }),
    );
    const same = await adapt(session, { dryRun: false, spec: { targetDurationMs: 5000 } });
    expect(same.warnings).toEqual([
      'maximum 10: the hosts have 2 worker slots (max_workers), so at most 2 workers can be placed',
    ]);
  });

  it('a dry run with a new target_duration warns as the real one does, and changes nothing', async () => {
    const { session, events } = fakeSession(spec({ targetDurationMs: 5000 }));
    const r = await adapt(session, { dryRun: true, spec: { targetDurationMs: 10_000 } });
    expect(r.dryRun).toBeDefined();
    expect(r.warnings).toEqual([
      expect.stringContaining('the running scheduler keeps 5s, not 10s'),
      'maximum 10: the hosts have 2 worker slots (max_workers), so at most 2 workers can be placed',
    ]);
    expect(events).toEqual([]);
    expect(session.adaptive).toBeUndefined();
  });

  it('the control method refuses off together with settings or a dry run', () => {
    expect(() => controlApi.adapt.parse({ off: true, spec: { minimum: 2 } })).toThrow(UsageError);
    expect(() => controlApi.adapt.parse({ off: true, dryRun: true })).toThrow(UsageError);
    expect(controlApi.adapt.parse({ off: true })).toEqual({ off: true });
    expect(controlApi.adapt.parse({ off: true, spec: {} })).toEqual({ off: true });
  });

  it('scale says it turned adaptive off, only when it was on', async () => {
    const { session, scaled } = fakeSession();
    sessions.push(session);
    await adapt(session, { dryRun: false, spec: { minimum: 1, maximum: 3 } });
    expect(session.adaptive?.enabled).toBe(true);
    expect(await session.userScale(2)).toEqual({ desired: 2, adaptiveOff: true });
    expect(session.adaptive?.enabled).toBe(false);
    expect(await session.userScale(1)).toEqual({ desired: 1 });
    expect(scaled).toEqual([2, 1]);
  });

  it("records a user's scale and adapt among the events, with the settings taken (memory bounds readable); a dry run and an off that changes nothing record none", async () => {
    const { session, core, events } = fakeSession();
    sessions.push(session);
    const notices = () => events.flatMap((e) => (e.kind === 'notice' ? [e.message] : []));
    await adapt(session, { dryRun: true, spec: { maximum: 3 } });
    await adapt(session, { off: true });
    expect(notices()).toEqual([]);
    const r = await adapt(session, {
      dryRun: false,
      spec: { minimum: 1, maximum: 3, maximumMemory: 8 * 2 ** 30, minimumCores: 2 },
    });
    await session.userScale(4);
    await session.userScale(1);
    await adapt(session, { dryRun: false, spec: {} });
    await adapt(session, { off: true });
    const on =
      'between 1 and 3 workers, at least 2 cores, at most 8.0G of memory, every 1s, scale down after 3 recommendations';
    expect(adaptiveSettingsText(r.spec!)).toBe(on);
    expect(notices()).toEqual([
      'maximum 3: the hosts have 2 worker slots (max_workers), so at most 2 workers can be placed',
      `adaptive on: ${on}`,
      'scale: 2 → 4 worker(s); adaptive is off (a fixed size)',
      'scale: 2 → 1 worker(s)',
      'maximum 3: the hosts have 2 worker slots (max_workers), so at most 2 workers can be placed',
      `adaptive on: ${on}`,
      'adaptive off: the worker count stays where it is',
    ]);
    // Fewer placed than asked, without the placement's why: the event says how many.
    Object.assign(core, {
      reconciler: { scale: async () => ({ desired: 3 }), outcomes: async () => new Map() },
    });
    await session.userScale(9);
    expect(notices().at(-1)).toBe('scale: 2 → 3 worker(s) (9 asked)');
    // With it (explainShortfall's, which names the count): how many, and why, said once.
    Object.assign(core, {
      reconciler: {
        scale: async () => ({
          desired: 2,
          message: 'asked for 5 workers, only 2 can be placed: 2 slots on healthy hosts',
        }),
        outcomes: async () => new Map(),
      },
    });
    await session.userScale(5);
    expect(notices().at(-1)).toBe(
      'scale: 2 → 2 worker(s) (asked for 5 workers, only 2 can be placed: 2 slots on healthy hosts)',
    );
  });
});
