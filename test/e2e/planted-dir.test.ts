// Issue 12 #6 on real hosts: TMPDIR is a shared 1777 directory in which another user
// planted `sshcluster-<uid>` as a symlink to a directory of theirs. Nothing of ours is
// written there (the launcher runs from memory, its orphan output is not kept), and
// after the controller is killed and `up` re-adopts, the keeper reads nothing from it:
// "not our directory" shows in status as the hosts' lastError, the planted lines never
// reach `logs`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, sleep, STATE_HOME, until } from './cli-driver.js';
import { getTestHosts } from './harness/context.js';
import { writeHostsYaml } from './harness/netns-hosts.js';

const info = getTestHosts();
const two = info.hosts.slice(0, 2);
const tmp = (name: string) => path.join(info.dir, name);

afterAll(() => {
  runCli(['down', '--name', 'planted'], {}, 90_000);
});

describe('a planted directory in a shared TMPDIR', () => {
  it('is never written or read, and status says "not our directory" after re-adoption', async () => {
    const shared = tmp('shared-tmp');
    fs.mkdirSync(shared);
    fs.chmodSync(shared, 0o1777);
    const theirs = tmp('theirs');
    fs.mkdirSync(theirs, { mode: 0o777 });
    fs.symlinkSync(theirs, path.join(shared, `sshcluster-${os.userInfo().uid}`));
    const file = writeHostsYaml(tmp('planted.yaml'), { ...info, hosts: two }, {
      name: 'planted',
      env: { TMPDIR: shared, DASK_TEMPORARY_DIRECTORY: tmp('dask-scratch') },
    });
    const up = runCli(['up', file, '--detach'], {}, 120_000);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    const state = JSON.parse(fs.readFileSync(path.join(STATE_HOME, 'sshcluster', 'planted', 'state.json'), 'utf8'));
    const worker = `${two[1]!.ip}-0`;
    // What the attacker leaves for the next controller to show.
    fs.mkdirSync(path.join(theirs, state.clusterId));
    fs.writeFileSync(path.join(theirs, state.clusterId, `${worker}.log`), 'PLANTED-LINE\n');

    process.kill(state.controller.pid, 'SIGKILL');
    await sleep(1500);
    const again = runCli(['up', file, '--detach'], {}, 120_000);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain('re-adopted 2 process(es)');
    // The keepers say so as they start reading, which may be just after up returned.
    const s = await until('both hosts degraded', () => {
      const st = JSON.parse(runCli(['status', '--name', 'planted', '--json']).stdout) as { hosts: { state: string; lastError: string | null }[] };
      return st.hosts.every((h) => h.state === 'degraded') ? st : undefined;
    }, 30_000);
    for (const h of s.hosts) {
      expect(h.state).toBe('degraded');
      expect(h.lastError).toMatch(new RegExp(`: not our directory: ${shared}/sshcluster-\\d+ \\(a symlink or not a directory\\)`));
    }
    const logs = runCli(['logs', worker, '--name', 'planted']);
    expect(logs.stdout).toContain('not our directory');
    expect(logs.stdout + logs.stderr).not.toContain('PLANTED-LINE');
    // Only the attacker's own file is in their directory: we wrote nothing there.
    expect(fs.readdirSync(theirs)).toEqual([state.clusterId]);
    expect(fs.readdirSync(path.join(theirs, state.clusterId))).toEqual([`${worker}.log`]);

    const down = runCli(['down', '--name', 'planted'], {}, 90_000);
    expect(down.code, down.stdout + down.stderr).toBe(0);
  });
});
