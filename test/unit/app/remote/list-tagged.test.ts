// listTagged on this machine's real /proc, through the local shell: a process is ours
// only when its environment has both this cluster's id and this host's name, each as
// a whole variable (a longer id or another host's tag does not count).
import { spawn, type ChildProcess } from 'node:child_process';
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

  it('finds nothing (and does not wait on stdin) when no process carries the id', async () => {
    const runner = new ShellHostRunner({ host: 'h1', clusterId: `none${process.pid}`, setup: [], shell: new LocalShell(process.env), python: 'python3', env: {} });
    expect(await runner.listTagged()).toEqual([]);
  });
});
