// State dir ownership (issue 12, finding 7): the control socket takes commands without
// further auth, so a state root or cluster dir another user owns or can write to is
// refused, by the controller that makes it and by every command that would connect
// through it. The user is injected (uid) so no second account is needed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findCluster } from '../../../../src/app/commands/find-cluster.js';
import { runList } from '../../../../src/app/commands/cluster-clients.js';
import { clusterPaths, ensureClusterDir, stateRoot } from '../../../../src/control/paths.js';
import { writeState, type ClusterRecord } from '../../../../src/control/state-file.js';
import { testContext, type TestContext } from '../context-fixture.js';
import { testSpec } from '../../config/spec-fixture.js';

const uid = os.userInfo().uid;
let ctx: TestContext;
let root: string;
beforeEach(() => {
  ctx = testContext();
  root = stateRoot(ctx.env, ctx.homedir);
});
afterEach(() => ctx.cleanup());

const mode = (p: string) => fs.statSync(p).mode & 0o7777;

async function clusterWithState(name = 't'): Promise<ReturnType<typeof clusterPaths>> {
  const p = clusterPaths(root, name);
  await ensureClusterDir(p);
  const state: ClusterRecord = {
    version: 1,
    name,
    clusterId: 'id-1',
    spec: { ...testSpec({ workers: ['n1'] }), name },
    controller: { pid: 1, socket: p.socket, startedAt: '' },
    schedulerAddress: 'tcp://n0:8786',
    dashboardUrl: '',
    processes: [],
    desiredWorkers: 1,
    updatedAt: '',
  };
  await writeState(p.stateFile, state);
  return p;
}

describe("state dirs must be the user's own", () => {
  it('makes a fresh root and cluster dir 0700 and takes them', async () => {
    const p = clusterPaths(root, 'lab');
    await ensureClusterDir(p, { uid });
    expect([mode(root), mode(p.dir), mode(p.logsDir)]).toEqual([0o700, 0o700, 0o700]);
  });

  it('refuses a cluster dir writable by group or others instead of using (and chmod-ing) it', async () => {
    const p = clusterPaths(root, 'lab');
    fs.mkdirSync(p.dir, { recursive: true, mode: 0o700 });
    fs.chmodSync(p.dir, 0o777);
    await expect(ensureClusterDir(p, { uid })).rejects.toThrow(`${p.dir} is writable by group or others (mode 0777)`);
    expect(mode(p.dir)).toBe(0o777);
  });

  it('refuses a state root owned by another user, with the way out', async () => {
    fs.mkdirSync(root, { recursive: true, mode: 0o700 });
    const err = await ensureClusterDir(clusterPaths(root, 'lab'), { uid: uid + 1 }).then(
      () => undefined,
      (e: Error & { hint?: string }) => e,
    );
    expect(err?.message).toBe(
      `${root} belongs to uid ${uid}, not to this user (uid ${uid + 1}); refusing to keep the cluster state and control socket there`,
    );
    expect(err?.hint).toContain('set XDG_STATE_HOME to a directory of your own');
  });

  it("refuses a cluster dir that is a symlink to someone else's dir", async () => {
    fs.mkdirSync(root, { recursive: true, mode: 0o700 });
    const theirs = fs.mkdtempSync(path.join(os.tmpdir(), 'sshc-theirs-'));
    try {
      fs.symlinkSync(theirs, path.join(root, 'lab'));
      await expect(ensureClusterDir(clusterPaths(root, 'lab'), { uid })).rejects.toThrow(
        `${path.join(root, 'lab')} is a symlink`,
      );
    } finally {
      fs.rmSync(theirs, { recursive: true, force: true });
    }
  });

  it('refuses an XDG_STATE_HOME others can write to, unless it is sticky like /tmp', async () => {
    const base = path.dirname(root);
    fs.mkdirSync(base, { recursive: true });
    fs.chmodSync(base, 0o777);
    await expect(ensureClusterDir(clusterPaths(root, 'lab'), { uid })).rejects.toThrow(
      `${base} is writable by group or others (mode 0777)`,
    );
    fs.chmodSync(base, 0o1777);
    await ensureClusterDir(clusterPaths(root, 'lab'), { uid });
  });

  it("takes an XDG_STATE_HOME writable by the user's own group (umask 002, user private groups)", async () => {
    const base = path.dirname(root);
    fs.mkdirSync(base, { recursive: true });
    fs.chmodSync(base, 0o775);
    expect(fs.statSync(base).gid).toBe(os.userInfo().gid);
    await ensureClusterDir(clusterPaths(root, 'lab'));
    expect(mode(path.join(root, 'lab'))).toBe(0o700);
  });

  it('status, scale, down … refuse to connect through a cluster dir others can write to', async () => {
    const p = await clusterWithState('t');
    fs.chmodSync(p.dir, 0o770);
    await expect(findCluster(ctx, 't', false)).rejects.toThrow(`${p.dir} is writable by group or others (mode 0770)`);
    await expect(findCluster(ctx, undefined, false)).rejects.toThrow(`${p.dir} is writable by group or others`);
  });

  it('list shows such a cluster as refused and does not connect to it', async () => {
    const p = await clusterWithState('t');
    fs.chmodSync(p.logsDir, 0o777);
    expect(await runList(ctx, { json: true })).toBe(0);
    const rows = JSON.parse(ctx.out()) as { name: string; controller: string; error: string }[];
    expect(rows).toEqual([
      expect.objectContaining({
        name: 't',
        controller: 'refused',
        error: expect.stringContaining('writable by group or others'),
      }),
    ]);
  });
});
