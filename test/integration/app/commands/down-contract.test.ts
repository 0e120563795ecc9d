// `down` for scripts (issue 11, #5): with --json stdout is one JSON document (progress on
// stderr); with nothing to stop it exits 0 and says so on stderr, like
// `docker compose down` (a --name this machine never had a cluster of is a typo: exit 2,
// unknown-cluster.test.ts).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runDown } from '../../../../src/app/commands/down.js';
import { localClusterSpec } from '../../../../src/config/local.js';
import type { ClusterSpec } from '../../../../src/config/spec.js';
import { testHost } from '../../../unit/config/spec-fixture.js';
import { clusterPaths, ensureClusterDir, stateRoot } from '../../../../src/control/paths.js';
import { writeState } from '../../../../src/control/state-file.js';
import { testContext, type TestContext } from '../../../unit/app/context-fixture.js';

let ctx: TestContext;
beforeEach(() => (ctx = testContext()));
afterEach(() => ctx.cleanup());

describe('sshcluster down', () => {
  it('exits 0 with a message on stderr when nothing is running, and nothing on stdout', async () => {
    expect(await runDown(ctx, { json: false })).toBe(0);
    expect(ctx.out()).toBe('');
    expect(ctx.err()).toBe('sshcluster: no cluster is running on this machine; nothing to stop\n');
    // A cluster that ran and stopped (its runs recorded) is no typo: nothing to stop.
    fs.mkdirSync(path.join(stateRoot(ctx.env, ctx.homedir), 'gone', 'logs', '20260101T000000Z-abcdef'), {
      recursive: true,
    });
    expect(await runDown(ctx, { name: 'gone', json: false })).toBe(0);
    expect(ctx.err()).toContain(
      'cluster "gone" is not running (it has stopped; the logs of its last runs are kept); nothing to stop',
    );
  });

  it('with --json and nothing running prints a JSON document all the same', async () => {
    expect(await runDown(ctx, { json: true })).toBe(0);
    expect(JSON.parse(ctx.out())).toEqual({ name: null, forced: [], leftover: [] });
  });

  it('with --json writes only JSON on stdout while it stops a cluster, its progress on stderr', async () => {
    const spec = { ...localClusterSpec({ cores: 2, memoryBytes: 2 ** 30, python: 'python3' }), name: 'loc' };
    const p = clusterPaths(stateRoot(ctx.env, ctx.homedir), 'loc');
    await ensureClusterDir(p);
    await writeState(p.stateFile, {
      version: 1,
      name: 'loc',
      clusterId: 'no-such-id-' + path.basename(ctx.stateHome),
      spec,
      controller: null,
      schedulerAddress: 'tcp://127.0.0.1:8786',
      dashboardUrl: '',
      processes: [],
      desiredWorkers: 0,
      updatedAt: '',
    });
    // The dead controller's sockets (a kill -9 leaves them) go with the state file.
    for (const f of [p.socket, p.httpSocket]) fs.writeFileSync(f, '');
    expect(await runDown(ctx, { json: true })).toBe(0);
    expect(JSON.parse(ctx.out())).toEqual({ name: 'loc', forced: [], leftover: [] });
    expect(ctx.err()).toContain('No controller answers for loc; stopping its processes from the state file');
    expect(fs.readdirSync(p.dir).filter((f) => !fs.statSync(path.join(p.dir, f)).isDirectory())).toEqual([]);
  });

  it('from the state file also visits a host an apply removed and had yet to leave, and stops what of the cluster runs there', async () => {
    const spec = { ...localClusterSpec({ cores: 2, memoryBytes: 2 ** 30, python: 'python3' }), name: 'loc' };
    const clusterId = `gone-${process.pid}-${Date.now()}`;
    // A worker of the removed host "gone" that the dead controller was still retiring.
    const left = spawn('sleep', ['60'], {
      env: { ...process.env, SSHCLUSTER_ID: clusterId, SSHCLUSTER_HOST: 'gone' },
      stdio: 'ignore',
    });
    const exited = new Promise((r) => left.once('exit', (_code, signal) => r(signal)));
    try {
      const p = clusterPaths(stateRoot(ctx.env, ctx.homedir), 'loc');
      await ensureClusterDir(p);
      await writeState(p.stateFile, {
        version: 1,
        name: 'loc',
        clusterId,
        spec,
        controller: null,
        schedulerAddress: 'tcp://127.0.0.1:8786',
        dashboardUrl: '',
        processes: [{ name: 'gone-0', host: 'gone', role: 'worker', pid: left.pid! }],
        desiredWorkers: 0,
        updatedAt: '',
        formerHosts: [{ ...spec.workerHosts[0]!, name: 'gone' }],
      });
      expect(await runDown(ctx, { json: false })).toBe(0);
      expect(ctx.out()).toContain('  gone: stopped 1 process(es) of the cluster; clean\n');
      expect(await exited).toBe('SIGTERM');
    } finally {
      left.kill('SIGKILL');
    }
  });

  it('from the state file, a host no controller ever reached does not keep the cluster from going (nothing of it can be there); one reached before does', async () => {
    // Port 1 on loopback refuses at once: a host that does not answer.
    const nowhere = (name: string) => ({
      ...testHost(name),
      connect: { ...testHost(name).connect, hostname: '127.0.0.1', port: 1, connectTimeoutMs: 2_000 },
    });
    const spec: ClusterSpec = {
      name: 'far',
      local: false,
      schedulerHost: nowhere('s'),
      schedulerOptions: { port: 8786, dashboardAddress: ':8787' },
      workerHosts: [nowhere('typo')],
    };
    const p = clusterPaths(stateRoot(ctx.env, ctx.homedir), 'far');
    await ensureClusterDir(p);
    const state = (unreached: string[]) =>
      writeState(p.stateFile, {
        version: 1,
        name: 'far',
        clusterId: 'far-' + path.basename(ctx.stateHome),
        spec,
        controller: null,
        schedulerAddress: 'tcp://127.0.0.1:8786',
        dashboardUrl: '',
        processes: [],
        desiredWorkers: 0,
        updatedAt: '',
        unreached,
      });
    await state(['typo']);
    expect(await runDown(ctx, { name: 'far', json: false })).toBe(1); // s was reached once: not checked
    expect(ctx.out()).toContain(
      '  typo: never reached by this cluster, so nothing of it is there (cannot connect now: ',
    );
    expect(ctx.err()).toContain('  s: cannot connect to check it: ');
    await state(['s', 'typo']);
    expect(await runDown(ctx, { name: 'far', json: false })).toBe(0);
    expect(fs.existsSync(p.stateFile)).toBe(false);
  });
});
