import { describe, expect, it } from 'vitest';
import { localClusterSpec, localSplit, withLocalSplitOf } from '../../../src/config/local.js';

describe('localSplit (LocalCluster nprocesses_nthreads)', () => {
  it.each([
    [1, 1, 1],
    [2, 2, 1],
    [4, 4, 1],
    [6, 3, 2],
    [8, 4, 2],
    [9, 3, 3],
    [12, 4, 3],
    [16, 4, 4],
    [7, 7, 1],
  ])('%i cores → %i workers × %i threads', (cores, nworkers, nthreads) => {
    expect(localSplit(cores)).toEqual({ nworkers, nthreads });
  });

  it('derives the other number when one is given, like LocalCluster', () => {
    expect(localSplit(8, 3)).toEqual({ nworkers: 3, nthreads: 3 });
    expect(localSplit(8, undefined, 4)).toEqual({ nworkers: 2, nthreads: 4 });
    expect(localSplit(8, 16, 1)).toEqual({ nworkers: 16, nthreads: 1 });
    expect(localSplit(2, undefined, 8)).toEqual({ nworkers: 1, nthreads: 8 });
  });
});

describe('localClusterSpec', () => {
  const spec = localClusterSpec({ cores: 8, memoryBytes: 16 * 2 ** 30, python: '/usr/bin/python3' });

  it('describes a local cluster on localhost', () => {
    expect(spec.name).toBe('local');
    expect(spec.local).toBe(true);
    expect(spec.source).toBeUndefined();
    expect(spec.schedulerHost.name).toBe('localhost');
    expect(spec.workerHosts.map((h) => h.name)).toEqual(['localhost']);
    expect(spec.schedulerOptions).toEqual({ port: 8786, dashboardAddress: '127.0.0.1:8787', host: '127.0.0.1' });
    expect(spec.adaptive).toBeUndefined();
  });

  it('splits cores and memory between workers', () => {
    const w = spec.workerHosts[0]!;
    expect(w.workerOptions).toEqual({
      nthreads: 2,
      nworkers: 4,
      memoryLimit: String(4 * 2 ** 30),
      resources: {},
      nanny: true,
      deathTimeoutS: 60,
    });
    expect(w.maxWorkers).toBe(4);
    expect(w.remotePython).toBe('/usr/bin/python3');
    expect(w.connect).toMatchObject({ hostname: '127.0.0.1', port: 22, proxyJump: [] });
  });

  it('leaves memory to dask when it is unknown', () => {
    const s = localClusterSpec({ cores: 2, memoryBytes: 0, python: 'python3', nworkers: 1 });
    expect(s.workerHosts[0]!.workerOptions).toMatchObject({ nworkers: 1, nthreads: 2, memoryLimit: 'auto' });
  });
});

// A re-adopting `up` of a local cluster started with --nworkers 3 --nthreads 2, given
// without those flags, took this machine's default split (2 × 1, 2 slots) while 3
// workers of 2 threads ran: the next restart or scale went by the wrong numbers.
describe('withLocalSplitOf', () => {
  const started = localClusterSpec({ cores: 2, memoryBytes: 6 * 2 ** 30, python: 'python3', nworkers: 3, nthreads: 2 });
  const again = localClusterSpec({ cores: 2, memoryBytes: 6 * 2 ** 30, python: '/usr/bin/python3' });

  it('keeps the workers, threads, memory and slots the cluster was started with', () => {
    const kept = withLocalSplitOf(again, started);
    expect(kept.workerHosts[0]!.workerOptions).toMatchObject({
      nworkers: 3,
      nthreads: 2,
      memoryLimit: String(2 * 2 ** 30),
    });
    expect(kept.workerHosts[0]!.maxWorkers).toBe(3);
    expect(kept.workerHosts[0]!.remotePython).toBe('/usr/bin/python3'); // this up's interpreter
    expect(kept.schedulerHost).toBe(again.schedulerHost);
  });

  it('leaves a spec whose previous one has no local worker host as it is', () => {
    expect(withLocalSplitOf(again, { ...started, workerHosts: [] })).toBe(again);
  });
});
