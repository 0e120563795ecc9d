// The adaptive loop (app/controller/adaptive-loop.ts) over a fake port and clock: what
// it applies, and that a step it no longer owns applies nothing.
import { describe, expect, it } from 'vitest';
import { AdaptiveLoop, type AdaptivePort } from '../../../../src/app/controller/adaptive-loop.js';
import type { AdaptiveSpec } from '../../../../src/config/spec.js';
import { flush, harness, startUp, type Harness } from '../../cluster/harness.js';

const spec: AdaptiveSpec = { minimum: 0, maximum: 10, intervalMs: 1_000, waitCount: 1, targetDurationMs: 5_000 };

function loopOver(h: Harness) {
  const calls: string[] = [];
  const port: AdaptivePort = {
    state: h.state,
    clock: h.clock,
    emit: (e) => h.events.push(e),
    scheduler: () => h.scheduler,
    daskVersion: async () => '2024.12.1',
    scale: async (n) => void calls.push(`scale ${n}`),
    retire: async (names) => void calls.push(`retire ${names.join(',')}`),
    signal: h.life.signal,
  };
  return { loop: new AdaptiveLoop(port, spec), calls };
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
    expect(loop.status().log).toEqual([]);
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
