// up without a host file checks --python (or finds a local Python) before anything starts:
// a real interpreter, run for real.
import { describe, expect, it } from 'vitest';
import { loadSpec, localSpecFor } from '../../../../src/app/commands/cluster-spec.js';
import { findLocalPython } from '../../../../src/app/commands/local-python.js';
import { testContext } from '../../../unit/app/context-fixture.js';
import { UsageError } from '../../../../src/errors.js';

const env = { PATH: process.env.PATH };

describe('findLocalPython', () => {
  it('takes an interpreter that has distributed', () => {
    expect(findLocalPython(env, '/usr/bin/python3')).toBe('/usr/bin/python3');
  });

  it.each([
    ['/bin/true', 'it exited 0 without running the check (no output): is it a Python interpreter?'],
    ['/bin/false', 'no module named distributed'],
    ['/nonexistent/python', 'not found'],
  ])('refuses --python %s as bad input (exit 2), saying why', (python, why) => {
    let err: unknown;
    try {
      findLocalPython(env, python);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toBe(`Dask is not installed for --python ${python}: ${why}`);
  });
});

describe('loadSpec', () => {
  it('refuses --python with a host file (exit 2: it is for the local cluster), before reading the file', () => {
    const ctx = testContext();
    try {
      expect(() => loadSpec(ctx, 'hosts.yaml', '/usr/bin/python3')).toThrow(UsageError);
      expect(() => loadSpec(ctx, 'hosts.yaml', '/usr/bin/python3')).toThrow(
        '--python is for the local cluster (up without a host file); hosts.yaml is a host file',
      );
    } finally {
      ctx.cleanup();
    }
  });
});

// Dask's LocalCluster(n_workers=, threads_per_worker=): the local cluster had no way to
// choose its split (always this machine's cores), and `scale` past it is refused, with a
// hint that pointed at a host file (SSH) for more.
describe('loadSpec with --nworkers / --nthreads', () => {
  it('splits the local cluster as asked, memory shared between the workers as LocalCluster does', () => {
    const ctx = testContext();
    try {
      const [host] = loadSpec(ctx, undefined, '/usr/bin/python3', undefined, { nworkers: 4 }).workerHosts;
      expect(host!.workerOptions).toMatchObject({ nworkers: 4, nthreads: 1, memoryLimit: String(2 ** 30) });
      expect(host!.maxWorkers).toBe(4);
      const [one] = loadSpec(ctx, undefined, '/usr/bin/python3', undefined, { nworkers: 1, nthreads: 3 }).workerHosts;
      expect(one!.workerOptions).toMatchObject({ nworkers: 1, nthreads: 3 });
      const [byThreads] = loadSpec(ctx, undefined, '/usr/bin/python3', undefined, { nthreads: 2 }).workerHosts;
      expect(byThreads!.workerOptions).toMatchObject({ nworkers: 1, nthreads: 2 }); // 2 cores
    } finally {
      ctx.cleanup();
    }
  });

  it('refuses them with a host file (exit 2), pointing at worker_options', () => {
    const ctx = testContext();
    try {
      let err: unknown;
      try {
        loadSpec(ctx, 'hosts.yaml', undefined, undefined, { nworkers: 4 });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(UsageError);
      expect((err as UsageError).message).toBe(
        '--nworkers and --nthreads are for the local cluster (up without a host file); hosts.yaml is a host file',
      );
      expect((err as UsageError).hint).toBe('set worker_options: {nworkers: N, nthreads: N} in the host file instead');
    } finally {
      ctx.cleanup();
    }
  });
});

describe('localSpecFor (a re-adopting up of the local cluster)', () => {
  it('keeps the split it was started with unless --nworkers or --nthreads is given again', () => {
    const ctx = testContext();
    try {
      const started = loadSpec(ctx, undefined, '/usr/bin/python3', undefined, { nworkers: 3, nthreads: 2 });
      const plain = loadSpec(ctx, undefined, '/usr/bin/python3');
      const opts = (s: typeof plain) => s.workerHosts[0]!.workerOptions;
      expect(opts(localSpecFor(plain, { spec: started }))).toMatchObject({ nworkers: 3, nthreads: 2 });
      expect(localSpecFor(plain, { spec: started }).workerHosts[0]!.maxWorkers).toBe(3);
      const resized = loadSpec(ctx, undefined, '/usr/bin/python3', undefined, { nworkers: 1 });
      expect(opts(localSpecFor(resized, { spec: started }, { nworkers: 1 }))).toMatchObject({
        nworkers: 1,
        nthreads: 2,
      });
      expect(localSpecFor(plain, undefined)).toBe(plain); // nothing to adopt
    } finally {
      ctx.cleanup();
    }
  });
});
