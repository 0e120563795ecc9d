// A controller that died (kill -9) leaves its state file: `status` says what is left and
// how on. A detached controller's processes wait for a new one to adopt them; a
// foreground `up`'s stopped with it (their orphan grace is 0), so nothing is promised.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runStatus } from '../../../../src/app/commands/cluster-clients.js';
import { clusterPaths, ensureClusterDir, stateRoot } from '../../../../src/control/paths.js';
import { writeState } from '../../../../src/control/state-file.js';
import { ExpectedError } from '../../../../src/errors.js';
import { testSpec } from '../../config/spec-fixture.js';
import { testContext, type TestContext } from '../context-fixture.js';

let ctx: TestContext;
beforeEach(() => (ctx = testContext()));
afterEach(() => ctx.cleanup());

/** The state file a killed controller left: its socket answers no one. */
async function killed(name: string, orphanGraceS: number | undefined): Promise<void> {
  const p = clusterPaths(stateRoot(ctx.env, ctx.homedir), name);
  await ensureClusterDir(p);
  const controller = {
    pid: 2 ** 22 + 1,
    socket: p.dir + '/control.sock',
    startedAt: '',
    ...(orphanGraceS === undefined ? {} : { orphanGraceS }),
  };
  await writeState(p.stateFile, {
    version: 1,
    name,
    clusterId: `id-${name}`,
    source: '/srv/lab.yaml',
    spec: { ...testSpec({ workers: ['n1'] }), name },
    controller,
    schedulerAddress: 'tcp://n0:8786',
    dashboardUrl: '',
    processes: [{ name: 'scheduler', host: 'n0', role: 'scheduler', pid: 10 }],
    desiredWorkers: 1,
    updatedAt: '',
  });
}

async function statusHint(name: string): Promise<string> {
  const err = await runStatus(ctx, { name, json: false }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ExpectedError);
  expect((err as ExpectedError).message).toBe(`no controller is running for cluster "${name}"`);
  return (err as ExpectedError).hint ?? '';
}

describe('status of a cluster whose controller was killed', () => {
  it('after a foreground up: its processes stopped with it; down clears the record, up starts it again (no adoption promised)', async () => {
    await killed('fg', 0);
    const hint = await statusHint('fg');
    expect(hint).toBe(
      'its controller was a foreground up, and its processes stopped with it; sshcluster down --name fg verifies that nothing is left and clears this record, sshcluster up /srv/lab.yaml --name fg starts the cluster again',
    );
    expect(hint).not.toContain('adopt');
  });

  it('after up --detach (or an older state file): up --detach adopts what is still running', async () => {
    for (const [name, grace] of [
      ['bg', 300],
      ['old', undefined],
    ] as const) {
      await killed(name, grace);
      expect(await statusHint(name)).toBe(
        `sshcluster up /srv/lab.yaml --name ${name} --detach starts a new controller that adopts what is still running; sshcluster down --name ${name} stops it`,
      );
    }
  });
});
