import { describe, expect, it } from 'vitest';
import { describeExit } from '../../../src/dask/diagnose.js';

describe('describeExit', () => {
  it('says python is missing on exit 127', () => {
    expect(describeExit({ code: 127, signal: null }, ['sh: 1: exec: python9: not found'], 'python9')).toContain(
      'python not found: remote_python "python9"',
    );
  });
  it("gives the launcher's reason when it could not write the process's files (also exit 127)", () => {
    const tail = [
      "sshcluster-launcher: cannot write the cluster's files: not our directory: /tmp/sshcluster-0/c1 (a symlink or not a directory)",
    ];
    expect(describeExit({ code: 127, signal: null }, tail, 'python3')).toBe(
      "cannot write the cluster's files: not our directory: /tmp/sshcluster-0/c1 (a symlink or not a directory)",
    );
  });
  it('says distributed is missing', () => {
    const tail = ['Traceback (most recent call last):', "ModuleNotFoundError: No module named 'distributed'"];
    expect(describeExit({ code: 1, signal: null }, tail, '/usr/bin/python3')).toContain(
      'dask/distributed is not installed for /usr/bin/python3',
    );
  });
  it('says a port is taken', () => {
    expect(describeExit({ code: 1, signal: null }, ['OSError: [Errno 98] Address already in use'], 'p')).toContain(
      'port already in use',
    );
  });
  it("says a port is taken when the traceback's cause left the tail (a chained one is long)", () => {
    const tail = [
      'The above exception was the direct cause of the following exception:',
      ...Array(28).fill('  File "x.py", line 1'),
      'RuntimeError: Scheduler failed to start.',
    ];
    expect(describeExit({ code: 1, signal: null }, tail, 'p')).toBe(
      'exited with exit code 1: RuntimeError: Scheduler failed to start.',
    );
    expect(describeExit({ code: 1, signal: null }, tail, 'p', 'OSError: [Errno 98] Address already in use')).toContain(
      'port already in use',
    );
    expect(describeExit({ code: 1, signal: null }, tail, 'p', 'ValueError: no such interface eth9')).toBe(
      'exited with exit code 1: RuntimeError: Scheduler failed to start. (ValueError: no such interface eth9)',
    );
  });
  it('reads the first exception only behind "failed to start": an early, handled one says nothing of a later exit', () => {
    const tail = ['2026-11-26 - distributed.worker - INFO - ThreadPoolExecutor ready', 'ValueError: bad'];
    expect(
      describeExit({ code: 3, signal: null }, tail, 'p', "FileNotFoundError: [Errno 2] No such file or directory: 'x'"),
    ).toBe('exited with exit code 3: ValueError: bad');
  });
  it('falls back to the last error-looking line', () => {
    expect(describeExit({ code: 3, signal: null }, ['a', 'ValueError: bad', 'b'], 'p')).toBe(
      'exited with exit code 3: ValueError: bad',
    );
  });
});
