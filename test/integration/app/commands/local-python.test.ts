// up without a host file checks --python (or finds a local Python) before anything starts:
// a real interpreter, run for real.
import { describe, expect, it } from 'vitest';
import { loadSpec } from '../../../../src/app/commands/cluster-spec.js';
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
