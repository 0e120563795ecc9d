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
import { daskClient, runCli, sleep, STATE_HOME, until } from './cli-driver.js';
import { getTestHosts } from './harness/context.js';
import { writeHostsYaml } from './harness/netns-hosts.js';

const info = getTestHosts();
const two = info.hosts.slice(0, 2);
const tmp = (name: string) => path.join(info.dir, name);

afterAll(() => {
  runCli(['down', '--name', 'planted'], {}, 90_000);
  runCli(['down', '--name', 'plantscratch'], {}, 90_000);
});

describe('a planted directory in a shared TMPDIR', () => {
  it('is never written or read, and status says "not our directory" after re-adoption', async () => {
    const shared = tmp('shared-tmp');
    fs.mkdirSync(shared);
    fs.chmodSync(shared, 0o1777);
    const theirs = tmp('theirs');
    fs.mkdirSync(theirs, { mode: 0o777 });
    fs.symlinkSync(theirs, path.join(shared, `sshcluster-${os.userInfo().uid}`));
    const file = writeHostsYaml(
      tmp('planted.yaml'),
      { ...info, hosts: two },
      {
        name: 'planted',
        env: { TMPDIR: shared, DASK_TEMPORARY_DIRECTORY: tmp('dask-scratch') },
      },
    );
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
    const s = await until(
      'both hosts degraded',
      () => {
        const st = JSON.parse(runCli(['status', '--name', 'planted', '--json']).stdout) as {
          hosts: { state: string; lastError: string | null }[];
        };
        return st.hosts.every((h) => h.state === 'degraded') ? st : undefined;
      },
      30_000,
    );
    for (const h of s.hosts) {
      expect(h.state).toBe('degraded');
      expect(h.lastError).toMatch(
        new RegExp(`: not our directory: ${shared}/sshcluster-\\d+ \\(a symlink or not a directory\\)`),
      );
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

/** Every entry below `dir` (itself included) with its owner's uid. */
function owners(dir: string): { path: string; uid: number }[] {
  const below = fs.readdirSync(dir, { recursive: true }) as string[];
  return [dir, ...below.map((f) => path.join(dir, f))].map((p) => ({ path: p, uid: fs.lstatSync(p).uid }));
}

// Issue 33 #1: Dask reuses $TMPDIR/dask-worker-space (2024.12: dask-scratch-space) whoever
// made it and puts a worker's subdirectory first on sys.path: another user of the host who
// made it first (0777) could swap in their own modules. Every Dask process keeps its
// scratch space in the cluster's own checked directory instead, removed at down, and
// loads our preloads by module name (nothing copied).
describe("Dask's scratch space made first by another user", () => {
  it("is not used: the processes keep theirs under the cluster's own directory, removed at down", () => {
    const shared = tmp('shared-scratch-tmp');
    fs.mkdirSync(shared);
    fs.chmodSync(shared, 0o1777);
    const uid = os.userInfo().uid;
    const nobody = 65534;
    const planted = ['dask-worker-space', 'dask-scratch-space'].map((n) => path.join(shared, n));
    for (const p of planted) {
      fs.mkdirSync(p);
      fs.chmodSync(p, 0o777);
      fs.chownSync(p, nobody, nobody);
    }
    const file = writeHostsYaml(
      tmp('plantscratch.yaml'),
      { ...info, hosts: two },
      { name: 'plantscratch', env: { TMPDIR: shared } },
    );
    const up = runCli(['up', file, '--detach'], {}, 120_000);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    const state = JSON.parse(
      fs.readFileSync(path.join(STATE_HOME, 'sshcluster', 'plantscratch', 'state.json'), 'utf8'),
    );
    const status = JSON.parse(runCli(['status', '--name', 'plantscratch', '--json']).stdout) as {
      schedulerAddress: string;
    };
    const ours = path.join(shared, `sshcluster-${uid}`, state.clusterId, 'scratch');
    const seen = JSON.parse(
      daskClient(
        status.schedulerAddress,
        [
          'c.wait_for_workers(1, timeout=60)',
          'dirs = c.run(lambda dask_worker: dask_worker.local_directory)',
          'files = c.run(lambda dask_worker: sorted(__import__("os").listdir(dask_worker.local_directory)))',
          'tmp = c.run_on_scheduler(lambda: __import__("dask").config.get("temporary-directory"))',
          'print(json.dumps({"dirs": sorted(dirs.values()), "files": sorted(sum(files.values(), [])), "scheduler": tmp}))',
        ].join('\n'),
      ),
    ) as { dirs: string[]; files: string[]; scheduler: string };
    expect(seen.dirs.length).toBeGreaterThan(0);
    for (const d of seen.dirs) expect(d.startsWith(`${ours}/`), d).toBe(true);
    expect(seen.scheduler).toBe(ours);
    // Our preloads are imported by name from the cluster's files: no copy in a worker's directory.
    expect(seen.files.filter((f) => f.endsWith('.py'))).toEqual([]);
    // Nothing of the cluster's user in what the other user made.
    for (const p of planted) expect(owners(p).filter((o) => o.uid === uid)).toEqual([]);

    const down = runCli(['down', '--name', 'plantscratch'], {}, 90_000);
    expect(down.code, down.stdout + down.stderr).toBe(0);
    expect(fs.existsSync(path.join(shared, `sshcluster-${uid}`, state.clusterId))).toBe(false);
  });
});
