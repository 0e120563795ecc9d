// The adaptive loop (adaptive/adaptive-loop.ts) over a fake port and clock: what
// it applies, that a step it no longer owns applies nothing, and how pending work by
// resource (the scheduler preload's demand) decides where workers go and which stay.
import { describe, expect, it } from 'vitest';
import { AdaptiveLoop, type AdaptivePort } from '../../../src/adaptive/adaptive-loop.js';
import { adaptiveStatus } from '../../../src/app/controller/adaptive-status.js';
import type { AdaptiveSpec } from '../../../src/config/spec.js';
import { flush, harness, startUp, type Harness } from '../cluster/harness.js';

const spec: AdaptiveSpec = { minimum: 0, maximum: 10, intervalMs: 1_000, waitCount: 1, targetDurationMs: 5_000 };

function loopOver(h: Harness, over: Partial<AdaptiveSpec> = {}, daskVersion = '2024.12.1') {
  const calls: string[] = [];
  const port: AdaptivePort = {
    state: h.state,
    clock: h.clock,
    emit: (e) => h.events.push(e),
    scheduler: () => h.scheduler,
    daskVersion: async () => daskVersion,
    scale: async (n) => void calls.push(`scale ${n}`),
    add: async (adds) => void calls.push(`add ${adds.map((a) => `${a.host}+${a.count}`).join(',')}`),
    retire: async (names) => void calls.push(`retire ${names.join(',')}`),
    signal: h.life.signal,
  };
  return { loop: new AdaptiveLoop(port, { ...spec, ...over }), calls };
}

describe('adaptive loop', () => {
  it('applies an up decision as an absolute worker count', async () => {
    const h = harness({ workers: ['a'], nworkers: 4, initialWorkers: 1 });
    await startUp(h);
    h.scheduler.target = 3;
    const { loop, calls } = loopOver(h);
    loop.start();
    await flush();
    expect(calls).toEqual(['scale 3']);
    // Said as an event (the events view, status events[], up --json), with its reason.
    expect(h.events.filter((e) => e.kind === 'adaptive-decision')).toEqual([
      {
        kind: 'adaptive-decision',
        decision: 'up',
        target: 3,
        current: 1,
        after: 3,
        reason: expect.stringContaining('target 3 > 1'),
      },
    ]);
    loop.stop();
  });

  it('retires the idle worker holding the least memory', async () => {
    const h = harness({ workers: ['a'], nworkers: 3 });
    await startUp(h);
    h.scheduler.metrics.set('a-0', { executing: 0, memory: 500 });
    h.scheduler.metrics.set('a-1', { executing: 0, memory: 100 });
    h.scheduler.metrics.set('a-2', { executing: 2, memory: 50 });
    h.scheduler.target = 2;
    const { loop, calls } = loopOver(h);
    loop.start();
    await flush();
    expect(calls).toEqual(['retire a-1']);
    loop.stop();
  });

  it("keeps a worker's memory limit once known (memory_limit auto): at 0 workers a maximum_memory below it still means 0, no start/retire loop", async () => {
    const h = harness({ workers: ['a'], nworkers: 4, initialWorkers: 1 });
    await startUp(h);
    h.scheduler.target = 4;
    const { loop } = loopOver(h, { maximumMemory: 2 ** 30 });
    h.scheduler.memoryLimit = 4 * 2 ** 30; // what the registered worker reports
    expect((await loop.stepOnce(true)).reason).toContain('maximum_memory');
    h.scheduler.registered.clear(); // all gone: no worker reports a limit now
    const next = await loop.stepOnce(true);
    expect(next.target).toBe(0);
    expect(next.reason).toContain('maximum_memory');
  });

  it('applies nothing from a step that was in flight when adaptive stopped', async () => {
    const h = harness({ workers: ['a'], nworkers: 4, initialWorkers: 1 });
    await startUp(h);
    let answer!: (n: number) => void;
    h.scheduler.adaptiveTarget = () => new Promise((r) => (answer = r));
    const { loop, calls } = loopOver(h);
    loop.start();
    await flush();
    loop.stop(); // `scale N` or `adapt --off` while the scheduler is being asked
    answer(4);
    await flush();
    expect(calls).toEqual([]);
    expect(adaptiveStatus(loop).log).toEqual([]);
    expect(loop.enabled).toBe(false);
  });

  it('steps every interval and ends with the cluster', async () => {
    const h = harness({ workers: ['a'], nworkers: 4, initialWorkers: 1 });
    await startUp(h);
    let steps = 0;
    h.scheduler.adaptiveTarget = async () => (steps++, 1);
    const { loop } = loopOver(h);
    loop.start();
    await h.clock.advance(3_000);
    expect(steps).toBe(4); // at once, then at 1, 2 and 3 s
    h.life.abort();
    await h.clock.advance(3_000);
    expect(steps).toBe(4);
  });
});

/** Three CPU hosts and a GPU host (GPU=2), one worker slot each, no workers yet. */
function gpuLab(): Harness {
  const h = harness({ workers: ['c1', 'c2', 'gpu'], nworkers: 1, initialWorkers: 0 });
  (h.state.spec.workerHosts[2]!.workerOptions as { resources: Record<string, number> }).resources = { GPU: 2 };
  return h;
}
const gpuTasks = (n: number) => [{ resources: { GPU: 1 }, unrunnable: n, waiting: 0, running: 0, durationS: n }];
const notices = (h: Harness) => h.events.flatMap((e) => (e.kind === 'notice' ? [e.message] : []));

describe('adaptive loop with resources', () => {
  it('starts the one worker that GPU tasks want on the GPU host, not the first host', async () => {
    const h = gpuLab();
    await startUp(h);
    h.scheduler.target = 1; // Dask counts the unrunnable tasks, but not what they need
    h.scheduler.pending = gpuTasks(10);
    const { loop, calls } = loopOver(h, { maximum: 1 });
    loop.start();
    await flush();
    expect(calls).toEqual(['add gpu+1']);
    expect(adaptiveStatus(loop).log.at(-1)?.reason).toMatch(/; placed gpu \+1$/);
    expect(
      h.events.filter((e) => e.kind === 'adaptive-decision').map((e) => e.kind === 'adaptive-decision' && e.decision),
    ).toEqual(['up']);
    expect(adaptiveStatus(loop).unmet).toEqual([]);
    loop.stop();
  });

  it('says unmet demand once, in status too, and starts nothing where the work cannot run', async () => {
    const h = harness({ workers: ['c1', 'c2'], nworkers: 1, initialWorkers: 0 });
    await startUp(h);
    h.scheduler.target = 1;
    h.scheduler.pending = gpuTasks(4);
    const { loop, calls } = loopOver(h, { maximum: 1 });
    loop.start();
    await h.clock.advance(3_000);
    const said = notices(h).filter((m) => m.includes('GPU'));
    expect(said).toEqual(['adaptive: want 1 GPU worker, 0 placeable: no host declares GPU']);
    expect(adaptiveStatus(loop).unmet).toEqual(['want 1 GPU worker, 0 placeable: no host declares GPU']);
    expect(adaptiveStatus(loop).log.at(-1)?.reason).toMatch(
      /; unmet: want 1 GPU worker, 0 placeable: no host declares GPU$/,
    );
    // Dask's target 1 is the GPU tasks: no CPU worker is started for them.
    expect(calls).toEqual([]);
    // So no step changed the worker set: none is logged or announced as "up".
    expect(adaptiveStatus(loop).log.map((e) => e.decision)).toEqual(['none']);
    expect(h.events.filter((e) => e.kind === 'adaptive-decision')).toEqual([]);
    loop.stop();
  });

  // helper-23's trial: a TPU task and a plain one at 0 workers; Dask's target of 1 went to
  // the TPU task and the plain one waited for ever. Distributed 2022.12 and 2024.12 alike.
  it.each(['2022.12.1', '2024.12.1'])(
    '%s: a plain task beside GPU work no host can run still gets its one worker',
    async (version) => {
      const h = harness({ workers: ['c1', 'c2'], nworkers: 1, initialWorkers: 0 });
      await startUp(h);
      h.scheduler.target = 1;
      h.scheduler.pending = gpuTasks(1);
      h.scheduler.plainPending = 1;
      const { loop, calls } = loopOver(h, { maximum: 2 }, version);
      loop.start();
      await flush();
      expect(calls).toEqual(['add c1+1']);
      expect(adaptiveStatus(loop).unmet).toEqual(['want 1 GPU worker, 0 placeable: no host declares GPU']);
      loop.stop();
    },
  );

  it.each(['2022.12.1', '2024.12.1'])('%s: GPU work alone that no host can run starts no worker', async (version) => {
    const h = harness({ workers: ['c1', 'c2'], nworkers: 1, initialWorkers: 0 });
    await startUp(h);
    h.scheduler.target = 1;
    h.scheduler.pending = gpuTasks(3);
    const { loop, calls } = loopOver(h, { maximum: 2 }, version);
    loop.start();
    await h.clock.advance(3_000);
    expect(calls).toEqual([]);
    loop.stop();
  });

  // Unrunnable tasks add to Dask's target only from 2023.8 (dask/distributed#8037): before,
  // a target above the workers it has is all plain work, and nothing comes off it. From
  // 2023.8 the two GPU tasks (2 s of work, target duration 5 s) are one worker of it.
  it.each([
    ['2022.12.1', ['add a+2']],
    ['2024.12.1', ['add a+1']],
  ])(
    '%s: GPU tasks no host can run come off a target of 4 only where the scheduler counted them',
    async (version, expected) => {
      const h = harness({ workers: ['a'], nworkers: 4, initialWorkers: 2 });
      await startUp(h);
      h.scheduler.target = version.startsWith('2022') ? 8 : 4; // 2022.12 counts threads: 8 / 2 per worker
      h.scheduler.pending = gpuTasks(2);
      const { loop, calls } = loopOver(h, {}, version);
      loop.start();
      await flush();
      expect(adaptiveStatus(loop).target).toBe(4);
      expect(calls).toEqual(expected);
      loop.stop();
    },
  );

  it('keeps the last worker able to run pending GPU work when the policy would retire it', async () => {
    const h = gpuLab();
    await startUp(h);
    h.scheduler.pending = gpuTasks(1);
    await h.reconciler.add([{ host: 'gpu', count: 1 }]);
    h.scheduler.registered.add('gpu-0');
    h.scheduler.metrics.set('gpu-0', { executing: 0, memory: 100 }); // idle: the policy would retire it
    h.scheduler.target = 0;
    const { loop, calls } = loopOver(h);
    loop.start();
    await flush();
    expect(calls).toEqual([]);
    expect(adaptiveStatus(loop).log.at(-1)?.reason).toContain(
      'kept gpu-0 (last worker able to run GPU (1 task pending))',
    );
    h.scheduler.pending = [];
    await h.clock.advance(1_000);
    expect(calls).toEqual(['retire gpu-0']);
    loop.stop();
  });

  it('waits on no worker a group minimum keeps: its reason says the minimum keeps it, every step, and nothing is retired', async () => {
    const h = gpuLab();
    await startUp(h);
    h.scheduler.pending = [];
    await h.reconciler.add([{ host: 'gpu', count: 1 }]);
    h.scheduler.registered.add('gpu-0');
    h.scheduler.metrics.set('gpu-0', { executing: 0, memory: 100 }); // idle: the policy would retire it
    h.scheduler.target = 0;
    const groups = [{ name: 'gpu', hosts: ['gpu'], minimum: 1, maximum: 2 }];
    const { loop, calls } = loopOver(h, { waitCount: 3, groups });
    loop.start();
    await flush();
    for (let i = 0; i < 4; i++) await h.clock.advance(1_000);
    expect(calls).toEqual([]);
    const log = adaptiveStatus(loop).log;
    const reasons = log.map((e) => e.reason);
    expect(log.reduce((n, e) => n + e.count, 0)).toBeGreaterThanOrEqual(5); // equal steps are one entry, counted
    // It said "waiting 1/3 to retire gpu-0", "waiting 2/3 …", then "retire gpu-0; kept gpu-0 (group gpu minimum 1)".
    expect(new Set(reasons)).toEqual(new Set(['kept by the minimum: gpu-0 (group gpu minimum 1)']));
    expect(adaptiveStatus(loop).lastDecision).toBeNull();
    loop.stop();
  });

  it('without the demand route scales by count, resource-blind, and says so once', async () => {
    const h = gpuLab();
    await startUp(h);
    h.scheduler.target = 1;
    const { loop, calls } = loopOver(h, { maximum: 1 });
    loop.start();
    await h.clock.advance(2_000);
    expect(calls[0]).toBe('scale 1');
    expect(notices(h).filter((m) => m.includes('no demand route'))).toHaveLength(1);
    loop.stop();
  });
});
