// The CLI's scripting contract (issue 11, #5): usage errors look like the tool's own
// ("sshcluster: …", exit 2), --help shows durations as docs/reference.md writes them, and
// `list` says the same thing whether or not the state dir exists, with a header row.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { CommanderError } from 'commander';
import { afterEach, describe, expect, it } from 'vitest';
import { buildProgram } from '../../../src/cli/program.js';
import { clusterPaths, ensureClusterDir, stateRoot } from '../../../src/control/paths.js';
import { writeState } from '../../../src/control/state-file.js';
import { testContext, type TestContext } from '../../unit/app/context-fixture.js';
import { testSpec } from '../../unit/config/spec-fixture.js';

let ctx: TestContext;
afterEach(() => ctx.cleanup());

/** Runs the program in-process as main.ts does; the CommanderError, if any. */
async function run(...args: string[]): Promise<CommanderError | undefined> {
  try {
    await buildProgram(ctx, () => undefined).parseAsync(['node', 'sshcluster', ...args]);
    return undefined;
  } catch (err) {
    if (err instanceof CommanderError) return err;
    throw err;
  }
}

describe('usage errors', () => {
  it.each([
    [
      ['scale', 'x'],
      "sshcluster: command-argument value 'x' is invalid for argument 'n'. expected a whole number ≥ 0, got \"x\"",
    ],
    [['up', '--bogus'], "sshcluster: unknown option '--bogus'"],
    [['frobnicate'], "sshcluster: unknown command 'frobnicate'"],
    [
      ['status', '--name', 'a;b'],
      "sshcluster: option '--name <name>' argument 'a;b' is invalid. expected a name of letters",
    ],
    [
      ['env', '--name', '../x'],
      "sshcluster: option '--name <name>' argument '../x' is invalid. expected a name of letters",
    ],
    [
      ['restart', '--max-unavailable', '0', 'h.yaml'],
      "sshcluster: option '--max-unavailable <n>' argument '0' is invalid. expected a count of workers (1, 2, …) or a percentage of them from 1% to 100%, got \"0\"",
    ],
    [
      ['up', '--ready-timeout', '0s'],
      "sshcluster: option '--ready-timeout <duration>' argument '0s' is invalid. expected a time limit above 0",
    ],
    [
      ['restart', '--max-unavailable', '101%', 'h.yaml'],
      "sshcluster: option '--max-unavailable <n>' argument '101%' is invalid. expected a count of workers",
    ],
  ])('%j: "sshcluster:" like the tool\'s own errors, with the usage hint', async (args, first) => {
    ctx = testContext();
    const err = await run(...args);
    expect(err?.code).not.toMatch(/help|version/);
    expect(ctx.err().startsWith(first)).toBe(true);
    expect(ctx.err()).not.toMatch(/^error:/m);
    expect(ctx.err()).toContain('(add --help for usage)');
    expect(ctx.out()).toBe('');
  });

  it('exit with code 2 from the real binary (built by npm run build)', () => {
    const bin = path.resolve(import.meta.dirname, '../../../bin/sshcluster');
    const r = spawnSync(process.execPath, [bin, 'exec', 'h.yaml', '--fanout', '0', '--', 'true'], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^sshcluster: option '--fanout <n>' argument '0' is invalid/);
  });

  // helper-26's trial: no command at all printed the usage on stderr and exited 0.
  it('no command at all is bad usage (2), help asked for is not (0)', () => {
    const bin = path.resolve(import.meta.dirname, '../../../bin/sshcluster');
    const code = (...args: string[]) =>
      spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 30_000 }).status;
    expect([code(), code('help'), code('--help'), code('help', 'up')]).toEqual([2, 0, 0, 0]);
  });
});

describe('--help', () => {
  it.each([
    [['up', '--help'], /--ready-timeout <duration>[\s\S]*\(default: 120s\)/],
    [['scale', '--help'], /--timeout <duration>[\s\S]*\(default:\s+120s\)/],
    [['exec', '--help'], /--timeout <duration>[\s\S]*\(default: 10m\)/],
    [['check', '--help'], /--timeout <duration>[\s\S]*\(default: 30s\)/],
  ])('%j shows durations as docs/reference.md does', async (args, re) => {
    ctx = testContext();
    expect((await run(...args))?.code).toBe('commander.helpDisplayed');
    expect(ctx.out()).toMatch(re);
    expect(ctx.out()).not.toMatch(/\(default: (120|600|30)\)/);
  });
});

describe('exec without a command', () => {
  it('says the host file comes first (it was "missing required argument \'command\'"; found by the h40ssh trial)', async () => {
    ctx = testContext();
    await expect(run('exec', '--', 'hostname')).rejects.toMatchObject({
      exitCode: 2,
      message: 'exec: no host file: "hostname" was taken for it, and no command follows',
      hint: 'sshcluster exec HOSTS.yaml -- hostname: exec runs on the hosts of a file, the file first',
    });
    await expect(run('exec', 'lab.yaml')).rejects.toMatchObject({
      exitCode: 2,
      message: 'exec: no command after lab.yaml',
      hint: 'sshcluster exec lab.yaml -- COMMAND',
    });
    expect(ctx.out()).toBe('');
  });
});

describe('up --adapt --min above --max', () => {
  it("is refused before a background controller starts, with a hint (it was the controller's exit 2, no hint)", async () => {
    await refusedBeforeStart(
      [
        ['up', '--detach', '--adapt', '--min', '5', '--max', '2'],
        ['up', '--adapt', '--min', '5', '--max', '2'],
      ],
      { message: '--min 5 is above --max 2', hint: 'give a --min at most --max' },
    );
  });
});

describe('up --min/--max without --adapt', () => {
  it("is refused before a background controller starts, with a hint (it was the controller's exit, unexplained)", async () => {
    await refusedBeforeStart(
      [
        ['up', '--detach', '--min', '2'],
        ['up', '--max', '3'],
      ],
      {
        message: '--min and --max go with --adapt',
        hint: 'add --adapt to start adaptive between them, or leave them out for a fixed size',
      },
    );
  });
});

describe('sshcluster list', () => {
  it('says the same whether or not the state dir exists', async () => {
    ctx = testContext();
    ctx.env.XDG_STATE_HOME = path.join(ctx.stateHome, 'not-yet');
    await run('list');
    const missing = ctx.out();
    ctx.cleanup();
    ctx = testContext();
    await ensureClusterDir(clusterPaths(stateRoot(ctx.env, ctx.homedir), 'empty'));
    await run('list');
    expect(ctx.out()).toBe(missing);
    expect(missing).toBe('no clusters on this machine\n');
  });

  it('has a header row above the clusters', async () => {
    ctx = testContext();
    const p = clusterPaths(stateRoot(ctx.env, ctx.homedir), 'lab');
    await ensureClusterDir(p);
    await writeState(p.stateFile, {
      version: 1,
      name: 'lab',
      clusterId: 'x',
      spec: { ...testSpec({ workers: ['n1'] }), name: 'lab' },
      controller: null,
      schedulerAddress: 'tcp://n0:8786',
      dashboardUrl: '',
      processes: [],
      desiredWorkers: 1,
      updatedAt: '',
    });
    await run('list');
    expect(ctx.out().split('\n')).toEqual([
      'NAME                 CONTROLLER SCHEDULER',
      'lab                  gone       tcp://n0:8786',
      '',
    ]);
  });
});

/** Each command line is refused (exit 2, this message and hint) with nothing printed, nothing started. */
async function refusedBeforeStart(lines: string[][], e: { message: string; hint: string }): Promise<void> {
  for (const args of lines) {
    ctx = testContext();
    await expect(run(...args)).rejects.toMatchObject({ exitCode: 2, ...e });
    expect(ctx.out()).toBe('');
    ctx.cleanup();
  }
  ctx = testContext();
}
