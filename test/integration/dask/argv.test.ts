import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SchedulerOptions, WorkerOptions } from '../../../src/config/spec.js';
import {
  buildRemoteCommand,
  DASK_API_ROUTES,
  formatResources,
  schedulerArgv,
  schedulerEnv,
  shellQuote,
  viaSh,
  workerArgv,
  workerEnv,
} from '../../../src/dask/argv.js';
import { quotePath } from '../../../src/dask/remote-command.js';

const PYTHON = '/usr/bin/python3';
const worker: WorkerOptions = {
  nthreads: 2,
  nworkers: 3,
  memoryLimit: '4GiB',
  resources: { GPU: 2, FOO: 1 },
  nanny: true,
  deathTimeoutS: 60,
};

describe('argv', () => {
  it('builds the scheduler command', () => {
    const opts: SchedulerOptions = { port: 8786, dashboardAddress: ':8787' };
    expect(schedulerArgv('python3', opts)).toEqual([
      'python3',
      '-m',
      'distributed.cli.dask_scheduler',
      '--port',
      '8786',
      '--dashboard-address',
      ':8787',
    ]);
    expect(schedulerArgv('py', { ...opts, host: '10.0.0.1', interface: 'ib0' }).slice(-4)).toEqual([
      '--host',
      '10.0.0.1',
      '--interface',
      'ib0',
    ]);
  });

  it('builds a one-process worker command whatever nworkers says', () => {
    expect(workerArgv('python3', 'tcp://10.0.0.1:8786', 'node1-0', worker)).toEqual([
      'python3',
      '-m',
      'distributed.cli.dask_worker',
      'tcp://10.0.0.1:8786',
      '--name',
      'node1-0',
      '--nworkers',
      '1',
      '--nthreads',
      '2',
      '--memory-limit',
      '4GiB',
      '--resources',
      'GPU=2 FOO=1',
      '--nanny',
      '--death-timeout',
      '60',
      '--local-directory',
      '@sshcluster-scratch@',
    ]);
    const bare = workerArgv('py', 'tcp://h:1', 'w', { ...worker, resources: {}, nanny: false, interface: 'eth0' });
    expect(bare).not.toContain('--resources');
    expect(bare.slice(-7)).toEqual([
      '--no-nanny',
      '--death-timeout',
      '60',
      '--local-directory',
      '@sshcluster-scratch@',
      '--interface',
      'eth0',
    ]);
    expect(formatResources({})).toBe('');
  });

  it('is accepted by the real dask CLI', () => {
    const argv = workerArgv(PYTHON, 'tcp://127.0.0.1:1', 'w', worker);
    const res = spawnSync(argv[0]!, [...argv.slice(1), '--help'], { encoding: 'utf8' });
    expect(res.status).toBe(0);
    const sched = schedulerArgv(PYTHON, { port: 1, dashboardAddress: ':0', host: 'h', interface: 'lo' });
    expect(spawnSync(sched[0]!, [...sched.slice(1), '--help']).status).toBe(0);
  });
});

describe('env', () => {
  const daskConfig = (env: Record<string, string>): Record<string, unknown> => {
    const code =
      'import json, logging, dask, distributed; g = dask.config.get; print(json.dumps({' +
      '"routes": g("distributed.scheduler.http.routes"), "fmt": g("distributed.admin.log-format"),' +
      '"level": logging.getLogger("distributed").getEffectiveLevel()}))';
    return JSON.parse(execFileSync(PYTHON, ['-c', code], { env, encoding: 'utf8' })) as Record<string, unknown>;
  };

  it('enables the API routes and INFO logging on real distributed, over a user config saying otherwise', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dask-cfg-'));
    writeFileSync(
      join(dir, 'user.yaml'),
      "distributed:\n  logging: {distributed: warning}\n  admin: {log-format: '%(message)s'}\n",
    );
    const env = { PATH: '/usr/bin:/bin', HOME: dir, DASK_CONFIG: dir };
    try {
      expect(daskConfig(env)).toMatchObject({ level: 30, fmt: '%(message)s' });
      expect(daskConfig({ ...env, ...schedulerEnv() })).toEqual({
        routes: [...DASK_API_ROUTES],
        fmt: '%(asctime)s - %(name)s - %(levelname)s - %(message)s',
        level: 20,
      });
      expect(daskConfig({ ...env, ...workerEnv() })).toMatchObject({ level: 20 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps the keys it depends on over the extra env', () => {
    const env = schedulerEnv({ FOO: 'x', DASK_DISTRIBUTED__SCHEDULER__HTTP__ROUTES: '[]' });
    expect(env['FOO']).toBe('x');
    expect(env['DASK_DISTRIBUTED__SCHEDULER__HTTP__ROUTES']).toContain("'distributed.http.scheduler.api'");
    expect(workerEnv()).not.toHaveProperty('DASK_DISTRIBUTED__SCHEDULER__HTTP__ROUTES');
  });

  it("a worker's stdout is unbuffered: a task's print() is in the logs when printed", () => {
    expect(workerEnv()).toMatchObject({ PYTHONUNBUFFERED: '1' });
  });
});

describe('shell quoting and the remote command', () => {
  it('quotes only what needs it', () => {
    expect(shellQuote(['a', 'tcp://h:1', 'GPU=2 FOO=1', "it's", '', '$HOME', 'a=b'])).toBe(
      `a tcp://h:1 'GPU=2 FOO=1' 'it'\\''s' '' '$HOME' 'a=b'`,
    );
    expect(quotePath('~/venv/bin/python')).toBe('"$HOME"/venv/bin/python');
  });

  it('expands ~ in the python path and refuses bad env names', () => {
    const home = buildRemoteCommand({ setup: [], env: {}, name: 'w', argv: ['~/py', 'x'], clusterId: 'c' });
    expect(home.command).toContain(`exec "$HOME"/py -S -c`);
    expect(home.command).toMatch(/ sshcluster-launcher \d+ [0-9a-f]{16} w "\$HOME"\/py x$/);
    expect(() =>
      buildRemoteCommand({ setup: [], env: { 'A-B': '1' }, name: 'w', argv: ['py'], clusterId: 'c' }),
    ).toThrow(/A-B/);
  });
});
