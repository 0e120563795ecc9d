// A --name that matches no cluster on this machine is a usage error (exit 2) in every
// command that takes one, with the clusters there are, but `down`: nothing to stop is
// exit 0 there (as docker compose down; a clean-up before up), the list said all the
// same. A cluster that has stopped and left its recorded runs is not unknown: `down`
// has nothing to stop, `logs` reads it.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runApply, runDrain, runRestart } from '../../../../src/app/commands/change.js';
import { runAdapt } from '../../../../src/app/commands/adapt.js';
import { runAttach, runList, runLogs, runScale, runStatus } from '../../../../src/app/commands/cluster-clients.js';
import { runDown } from '../../../../src/app/commands/down.js';
import { runPlan } from '../../../../src/app/commands/plan.js';
import { runEnv } from '../../../../src/app/commands/env.js';
import { clusterPaths, ensureClusterDir, stateRoot } from '../../../../src/control/paths.js';
import { writeState } from '../../../../src/control/state-file.js';
import { ExpectedError } from '../../../../src/errors.js';
import { testSpec } from '../../config/spec-fixture.js';
import { testContext, type TestContext } from '../context-fixture.js';

let ctx: TestContext;
beforeEach(() => (ctx = testContext()));
afterEach(() => ctx.cleanup());

const root = () => stateRoot(ctx.env, ctx.homedir);

/** A cluster whose controller is gone and whose state file is left (its hosts never reached: down connects to none). */
async function leftState(name: string): Promise<void> {
  const p = clusterPaths(root(), name);
  await ensureClusterDir(p);
  await writeState(p.stateFile, {
    version: 1,
    name,
    clusterId: `id-${name}`,
    spec: { ...testSpec({ workers: ['n1'] }), name },
    controller: null,
    schedulerAddress: 'tcp://127.0.0.1:1',
    dashboardUrl: '',
    processes: [],
    desiredWorkers: 1,
    updatedAt: '',
    unreached: ['n0', 'n1'],
  });
}

/** A cluster that ran and stopped: only its recorded runs are left. */
function stopped(name: string): void {
  const run = path.join(clusterPaths(root(), name).logsDir, '20260101T000000Z-abcdef');
  fs.mkdirSync(run, { recursive: true });
  fs.writeFileSync(path.join(run, 'scheduler.log'), 'a line\n');
}

const rolling = { maxUnavailable: { count: 1 }, timeoutMs: 1_000 };
/** Every command that takes --name, called with `name`. */
function commands(name: string): [string, () => Promise<number>][] {
  const file = path.join(ctx.stateHome, 'hosts.yaml');
  fs.writeFileSync(file, 'name: lab\nhosts: [n0, n1]\n');
  return [
    ['status', () => runStatus(ctx, { name, json: false })],
    ['scale', () => runScale(ctx, { name, n: 1, timeoutMs: 1_000 })],
    ['adapt', () => runAdapt(ctx, { name, params: { off: true }, json: false })],
    ['logs', () => runLogs(ctx, { name, follow: false, tail: 10 })],
    ['logs -f', () => runLogs(ctx, { name, follow: true, tail: 10 })],
    ['attach', () => runAttach(ctx, { name, tui: false })],
    ['down', () => runDown(ctx, { name, json: false })],
    ['env', () => runEnv(ctx, { name, json: false, python: false })],
    ['drain', () => runDrain(ctx, { name, hosts: ['n1'], undrain: false, timeoutMs: 1_000 })],
    ['undrain', () => runDrain(ctx, { name, hosts: ['n1'], undrain: true, timeoutMs: 1_000 })],
    ['restart', () => runRestart(ctx, { name, ...rolling })],
    ['plan', () => runPlan(ctx, { file, name, json: false })],
    ['apply', () => runApply(ctx, { file, name, json: false, ...rolling })],
  ];
}

async function failure(run: () => Promise<number>): Promise<ExpectedError> {
  const err = await run().then(
    (code) => new Error(`exited ${code} without an error`),
    (e: unknown) => e,
  );
  if (!(err instanceof ExpectedError)) throw err;
  return err;
}

describe('--name matching no cluster', () => {
  it('exits 2 in every command but down, naming the clusters there are (running or not) and how to pick one', async () => {
    await leftState('lab');
    stopped('old');
    fs.mkdirSync(path.join(root(), 'empty')); // a bare dir is no cluster
    for (const [command, run] of commands('nosuch')) {
      if (command === 'down') continue;
      const err = await failure(run);
      expect({ command, code: err.exitCode, message: err.message, hint: err.hint }).toEqual({
        command,
        code: 2,
        message: 'no cluster named "nosuch" on this machine; there are: lab, old (stopped)',
        hint: 'name one of those with --name (sshcluster list shows them)',
      });
    }
  });

  it('list shows the clusters the error names, stopped ones as stopped (it said "no clusters" beside "there is: old (stopped)")', async () => {
    await leftState('lab');
    stopped('old');
    stopped('abc');
    expect(await runList(ctx, { json: false })).toBe(0);
    expect(ctx.out().split('\n')).toEqual([
      'NAME                 CONTROLLER SCHEDULER',
      'abc                  stopped    -',
      'lab                  gone       tcp://127.0.0.1:1',
      'old                  stopped    -',
      '',
    ]);
    expect((await failure(() => runStatus(ctx, { name: 'nosuch', json: false }))).message).toBe(
      'no cluster named "nosuch" on this machine; there are: abc (stopped), lab, old (stopped)',
    );
  });

  it('down of a name this machine never had exits 0, saying so with the clusters there are: a typo is seen, a clean-up script runs', async () => {
    await leftState('lab');
    expect(await runDown(ctx, { name: 'lba', json: false })).toBe(0);
    expect(ctx.err()).toBe(
      'sshcluster: no cluster named "lba" on this machine; there is: lab; nothing to stop\n  hint: name one of those with --name (sshcluster list shows them)\n',
    );
  });

  it('says so when there is no cluster at all', async () => {
    for (const [command, run] of commands('nosuch')) {
      if (command === 'down') continue;
      const err = await failure(run);
      expect({ command, code: err.exitCode, message: err.message }).toEqual({
        command,
        code: 2,
        message: 'no cluster named "nosuch" on this machine, and no other cluster either',
      });
      expect(err.hint).toContain('sshcluster up');
    }
  });

  it('a stopped cluster is known: down has nothing to stop (exit 0), logs reads its last run, the others say it is not running (exit 1)', async () => {
    stopped('old');
    for (const [command, run] of commands('old')) {
      if (command === 'down' || command === 'logs') {
        expect(await run()).toBe(0);
        continue;
      }
      const err = await failure(run);
      expect({ command, code: err.exitCode, message: err.message }).toEqual({
        command,
        code: 1,
        message: 'cluster "old" is not running (it has stopped; the logs of its last runs are kept)',
      });
    }
    expect(ctx.err()).toContain(
      'sshcluster: cluster "old" is not running (it has stopped; the logs of its last runs are kept); nothing to stop\n',
    );
    expect(ctx.out()).toContain('scheduler │ a line\n');
    // A detached one's controller log says why it ended (helper-26's trial: the scheduler's death was said nowhere else).
    fs.writeFileSync(clusterPaths(root(), 'old').controllerLog, 'Stopping cluster (scheduler exited)\n');
    expect((await failure(() => runStatus(ctx, { name: 'old', json: false }))).hint).toContain(
      `why it ended: the end of ${clusterPaths(root(), 'old').controllerLog}`,
    );
  });

  it('a state file whose controller is gone is no unknown name: down stops it from the state file', async () => {
    await leftState('lab');
    expect(await runDown(ctx, { name: 'lab', json: true })).toBe(0);
    expect(JSON.parse(ctx.out())).toEqual({ name: 'lab', forced: [], leftover: [] });
  });
});
