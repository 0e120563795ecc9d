// listTagged on this machine's real /proc, through the local shell: a process is ours
// only when its environment has both this cluster's id and this host's name, each as
// a whole variable (a longer id or another host's tag does not count).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLUSTER_ID_ENV } from '../../../../src/dask/remote-command.js';
import { LocalShell } from '../../../../src/app/remote/local-shell.js';
import { HOST_TAG, ShellHostRunner } from '../../../../src/app/remote/host-runner.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

function sleeper(env: Record<string, string>): number {
  const c = spawn('sleep', ['60'], { env: { PATH: process.env.PATH, ...env }, stdio: 'ignore' });
  children.push(c);
  return c.pid!;
}

describe('ShellHostRunner.listTagged', () => {
  it('finds exactly the processes tagged with this cluster and this host', async () => {
    const id = `t${process.pid}x${Date.now()}`;
    const ours = sleeper({ [CLUSTER_ID_ENV]: id, [HOST_TAG]: 'h1' });
    const otherHost = sleeper({ [CLUSTER_ID_ENV]: id, [HOST_TAG]: 'h2' });
    const longerId = sleeper({ [CLUSTER_ID_ENV]: `${id}0`, [HOST_TAG]: 'h1' });
    const untagged = sleeper({});
    const runner = new ShellHostRunner({ host: 'h1', clusterId: id, setup: [], shell: new LocalShell(process.env), python: 'python3', env: {} });
    const found = (await runner.listTagged()).map((p) => p.pid);
    expect(found).toEqual([ours]);
    expect(found).not.toContain(otherHost);
    expect(found).not.toContain(longerId);
    expect(found).not.toContain(untagged);
  });

  it('finds them too where grep has no -z (old busybox): the per-process loop then', async () => {
    const id = `z${process.pid}x${Date.now()}`;
    const ours = sleeper({ [CLUSTER_ID_ENV]: id, [HOST_TAG]: 'h1' });
    sleeper({ [CLUSTER_ID_ENV]: id, [HOST_TAG]: 'h2' });
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'sshc-grep-'));
    const real = ['/usr/bin/grep', '/bin/grep'].find((g) => fs.existsSync(g))!;
    fs.writeFileSync(path.join(bin, 'grep'), `#!/bin/sh\nfor a in "$@"; do case "$a" in -*z*) echo "grep: invalid option -- 'z'" >&2; exit 2;; esac; done\nexec ${real} "$@"\n`, { mode: 0o755 });
    try {
      const shell = new LocalShell({ ...process.env, PATH: `${bin}:${process.env.PATH}` });
      const runner = new ShellHostRunner({ host: 'h1', clusterId: id, setup: [], shell, python: 'python3', env: {} });
      expect((await runner.listTagged()).map((p) => p.pid)).toEqual([ours]);
    } finally {
      fs.rmSync(bin, { recursive: true, force: true });
    }
  });

  it('finds nothing (and does not wait on stdin) when no process carries the id', async () => {
    const runner = new ShellHostRunner({ host: 'h1', clusterId: `none${process.pid}`, setup: [], shell: new LocalShell(process.env), python: 'python3', env: {} });
    expect(await runner.listTagged()).toEqual([]);
  });
});
