// remote_python `auto`: the sh that finds the interpreter on a host, run here by a real
// sh with a PATH whose first python3 has no distributed (a venv or pyenv shim's case).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_REMOTE_PYTHON } from '../../../src/config/defaults.js';
import { describeExit } from '../../../src/dask/diagnose.js';
import {
  AUTO_PYTHON,
  buildKeeperCommand,
  buildRemoteCommand,
  NO_PYTHON_MESSAGE,
  pythonWord,
} from '../../../src/dask/remote-command.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sshc-py-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
// A python3 without site-packages: it runs, but distributed is not there.
fs.writeFileSync(path.join(tmp, 'python3'), '#!/bin/sh\nexec /usr/bin/python3 -S "$@"\n', { mode: 0o755 });

const sh = (script: string) =>
  spawnSync('/bin/sh', ['-c', script], { env: { PATH: `${tmp}:/usr/bin:/bin` }, encoding: 'utf8' });
const whichPython = (python: string, report = false) => {
  const py = pythonWord(python, { report });
  return [...py.lines, `exec ${py.word} -c 'import sys; print(sys.executable, sys.flags.no_site)'`].join('\n');
};

describe('python discovery', () => {
  it('is the default of remote_python', () => {
    expect(DEFAULT_REMOTE_PYTHON).toBe(AUTO_PYTHON);
  });

  it('passes over a python3 without distributed for the next candidate, and says which it took', () => {
    expect(sh(whichPython('python3')).stdout.trim()).toMatch(/ 1$/); // the PATH's python3: no site
    const r = sh(whichPython(AUTO_PYTHON, true));
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('/usr/bin/python3 0');
    expect(r.stderr).toBe(
      'sshcluster: python /usr/bin/python3 (first with distributed of python3, /usr/bin/python3, python)\n',
    );
  });

  it('uses a named remote_python as it is, without looking further', () => {
    expect(pythonWord('~/venv/bin/python')).toEqual({ lines: [], word: '"$HOME"/venv/bin/python' });
    expect(sh(whichPython('python3')).stdout.trim()).toMatch(/ 1$/);
  });

  it('starts processes and the keeper through the same discovery, after setup', () => {
    const cmd = buildRemoteCommand({
      setup: ['export X=1'],
      env: {},
      name: 'w',
      argv: [AUTO_PYTHON, '-m', 'distributed.cli.dask_worker'],
      clusterId: 'c',
    }).command;
    expect(cmd).toContain('for c in python3 /usr/bin/python3 python;');
    expect(cmd).toMatch(/exec "\$sshc_py" -S -c .* w "\$sshc_py" -m distributed\.cli\.dask_worker$/s);
    expect(cmd.indexOf('export X=1')).toBeLessThan(cmd.indexOf('sshc_py=')); // setup may change PATH
    const keeper = buildKeeperCommand({
      setup: [],
      env: {},
      python: AUTO_PYTHON,
      clusterId: 'c',
      name: 'w',
      pid: 42,
    }).command;
    expect(keeper).toContain('for c in python3 /usr/bin/python3 python;');
    expect(keeper).toMatch(/exec "\$sshc_py" -S -c .* w 42$/s);
  });

  it('says when no candidate has distributed, and turns that into a reason with the fix', () => {
    // (This machine's /usr/bin/python3 has distributed, so the "none" branch is read, not run.)
    expect(pythonWord(AUTO_PYTHON).lines[1]).toBe(
      `[ -n "$sshc_py" ] || { echo '${NO_PYTHON_MESSAGE}' >&2; exit 127; }`,
    );
    const why = describeExit({ code: 127, signal: null }, [NO_PYTHON_MESSAGE], AUTO_PYTHON);
    expect(why).toBe(
      'no python with dask/distributed found (tried python3, /usr/bin/python3, python): install it (apt-get install python3-distributed, or pip install distributed) or set remote_python',
    );
  });
});
