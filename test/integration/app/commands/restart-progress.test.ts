// `restart` prints each batch as the controller says it, while the roll runs: it printed
// nothing for the 51 s a six-worker restart took, then one line. Over a real control
// socket, with a controller that replies to `roll` only once the first batch's line is
// on the command's stdout.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runRestart } from '../../../../src/app/commands/change.js';
import { controlApi } from '../../../../src/app/controller/control-api.js';
import type { StatusJson } from '../../../../src/control/status-document.js';
import { clusterPaths, ensureClusterDir, stateRoot } from '../../../../src/control/paths.js';
import { startControlServer, type ControlHandlers, type ControlServer } from '../../../../src/control/server.js';
import { writeState } from '../../../../src/control/state-file.js';
import type { ClusterEvent } from '../../../../src/events/types.js';
import { UsageError } from '../../../../src/errors.js';
import { testSpec } from '../../../unit/config/spec-fixture.js';
import { testContext, type TestContext } from '../../../unit/app/context-fixture.js';

let ctx: TestContext;
let server: ControlServer | undefined;
afterEach(async () => {
  await server?.close();
  ctx.cleanup();
});

const worker = (name: string, host: string) => ({
  name,
  host,
  pid: 1,
  state: 'running' as const,
  restarts: 0,
  address: `tcp://${host}:1`,
  nthreads: 2,
});

describe('restart', () => {
  it('prints each batch as it begins and as it completes, before the roll ends', async () => {
    ctx = testContext();
    const p = clusterPaths(stateRoot(ctx.env, ctx.homedir), 'lab');
    await ensureClusterDir(p);
    const status = { workers: [worker('n1-0', 'n1'), worker('n2-0', 'n2')], desiredWorkers: 2 } as StatusJson;
    const say = (message: string): ClusterEvent => ({ kind: 'notice', level: 'info', message });
    const handlers = {
      status: async () => status,
      subscribe: async (_: unknown, conn) => (conn.subscribe(), { status, recentLines: [] }),
      roll: async () => {
        // Not the roll's: printed by nobody.
        server!.broadcast(say('drain: n3'));
        server!.broadcast(say('rolling restart: restarting n1-0 (1 of 2)'));
        server!.broadcast(say('rolling restart: restarted 1/2: n1-0 (12 s)'));
        await vi.waitFor(() => expect(ctx.out()).toContain('restarted 1/2'), { timeout: 10_000, interval: 20 });
        server!.broadcast(say('rolling restart: restarting n2-0 (2 of 2)'));
        server!.broadcast(say('rolling restart: restarted 2/2: n2-0 (11 s)'));
        await vi.waitFor(() => expect(ctx.out()).toContain('restarted 2/2'), { timeout: 10_000, interval: 20 });
        return { kind: 'done' as const, restarted: ['n1-0', 'n2-0'] };
      },
    } as Partial<ControlHandlers<typeof controlApi>> as ControlHandlers<typeof controlApi>;
    await serve(p, handlers);
    const code = await runRestart(ctx, { name: 'lab', maxUnavailable: { count: 1 }, timeoutMs: 60_000 });
    expect(code).toBe(0);
    expect(ctx.out()).toBe(
      [
        'restarting n1-0 (1 of 2)',
        'restarted 1/2: n1-0 (12 s)',
        'restarting n2-0 (2 of 2)',
        'restarted 2/2: n2-0 (11 s)',
        'lab: 2 worker(s) restarted, 1 at a time',
        '',
      ].join('\n'),
    );
  });

  it('with no worker running, refuses with a hint at what starts some (exit 2)', async () => {
    ctx = testContext();
    const p = clusterPaths(stateRoot(ctx.env, ctx.homedir), 'lab');
    await ensureClusterDir(p);
    const status = { workers: [], desiredWorkers: 0 } as unknown as StatusJson;
    await serve(p, { status: async () => status } as Partial<ControlHandlers<typeof controlApi>> as ControlHandlers<
      typeof controlApi
    >);
    const err = await runRestart(ctx, { name: 'lab', maxUnavailable: { count: 1 }, timeoutMs: 60_000 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toBe('restart: no worker in lab');
    expect((err as UsageError).hint).toBe('lab runs no worker now: `sshcluster scale N --name lab` starts some');
  });
});

/** A controller for cluster "lab" on its socket, with its state file. */
async function serve(p: ReturnType<typeof clusterPaths>, handlers: ControlHandlers<typeof controlApi>): Promise<void> {
  server = await startControlServer(p.socket, controlApi, handlers);
  await writeState(p.stateFile, {
    version: 1,
    name: 'lab',
    clusterId: 'id-lab',
    spec: { ...testSpec({ workers: ['n1', 'n2'] }), name: 'lab' },
    controller: { pid: process.pid, socket: p.socket, startedAt: '' },
    schedulerAddress: 'tcp://n0:8786',
    dashboardUrl: '',
    processes: [],
    desiredWorkers: 2,
    updatedAt: '',
  });
}
