// remote_python left unset: every host uses the first interpreter that has distributed
// (python3, /usr/bin/python3, python), as the local cluster does, and `check` and `up`
// agree on it. The hosts' PATH starts with a python3 that has no distributed (a venv or
// pyenv shim's case), which a plain `python3` would pick and fail with.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, STATE_HOME } from './cli-driver.js';
import { getTestHosts } from './harness/context.js';
import { daskProcessesIn, writeHostsYaml } from './harness/netns-hosts.js';

const info = getTestHosts();
const two = info.hosts.slice(0, 2);
const tmp = (name: string) => path.join(info.dir, name);
const env = { DASK_TEMPORARY_DIRECTORY: tmp('dask-scratch') };
const esc = (s: string) => s.replace(/[.[\]]/g, '\\$&');

afterEach(() => {
  if (fs.existsSync(path.join(STATE_HOME, 'sshcluster', 'auto', 'state.json')))
    runCli(['down', '--name', 'auto'], {}, 90_000);
});

describe('python discovery (remote_python unset)', () => {
  it('check and up both take the first python with distributed, passing over a python3 without it', () => {
    const bin = tmp('python-without-dask');
    fs.mkdirSync(bin, { recursive: true });
    fs.writeFileSync(path.join(bin, 'python3'), '#!/bin/sh\nexec /usr/bin/python3 -S "$@"\n', { mode: 0o755 });
    const file = writeHostsYaml(
      tmp('auto.yaml'),
      { ...info, hosts: two },
      { name: 'auto', env, remote_python: undefined, setup: [`export PATH=${bin}:$PATH`] },
    );
    expect(fs.readFileSync(file, 'utf8')).not.toContain('remote_python');

    const check = runCli(['check', file], {}, 120_000);
    expect(check.code, check.stdout + check.stderr).toBe(0);
    for (const h of two)
      expect(check.stdout).toMatch(new RegExp(`^${esc(h.ip)}\\s+\\S+\\s+ok\\s+.*\\s/usr/bin/python3 3\\.\\d+`, 'm'));

    const up = runCli(['up', file, '--detach'], {}, 120_000);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    expect(up.stdout).toMatch(/Cluster up: 1 worker\(s\)/);
    const logs = runCli(['logs', '--name', 'auto', '--tail', '1000']);
    for (const name of ['scheduler', `${two[1]!.ip}-0`]) {
      expect(logs.stdout).toContain(
        `${name} │ sshcluster: python /usr/bin/python3 (first with distributed of python3, /usr/bin/python3, python)`,
      );
    }
    const down = runCli(['down', '--name', 'auto'], {}, 120_000);
    expect(down.code, down.stderr).toBe(0);
    expect(two.flatMap((h) => daskProcessesIn(h))).toEqual([]);
  });
});
