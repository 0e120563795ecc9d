// A reader that goes away (`sshcluster … | head -1`) ends a command at once and quietly,
// with 141 as a tool killed by SIGPIPE: no EPIPE stack trace. `exec` closes its SSH
// connections on the way, so what it ran ends with its channel; `down` runs to its end.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { localClusterSpec } from '../../../src/config/local.js';
import { clusterPaths, ensureClusterDir, stateRoot } from '../../../src/control/paths.js';
import { writeState } from '../../../src/control/state-file.js';
import { pipedOutput } from '../../../src/terminal.js';
import { makeKey, startTestServer } from '../ssh/test-server.js';

const BIN = path.resolve(import.meta.dirname, '../../../bin/sshcluster');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sshc-reader-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const env: NodeJS.ProcessEnv = {
  ...process.env,
  HOME: tmp,
  XDG_STATE_HOME: path.join(tmp, 'state'),
  XDG_CACHE_HOME: path.join(tmp, 'cache'),
};

/** Whose reader goes, and when: before anything is written, or after a first chunk (`| head -1`). */
type Gone = 'stdout' | 'stderr' | 'stdout after a chunk';

/** Runs the built CLI with a reader that goes away; its exit code and what it said on stderr. */
async function runReaderGone(gone: Gone, ...args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  if (gone === 'stderr') child.stderr.destroy();
  else child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
  if (gone === 'stdout') child.stdout.destroy();
  if (gone === 'stdout after a chunk') child.stdout.once('data', () => child.stdout.destroy());
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stderr };
}

/** A zombie has ended too: an orphan's is reaped when its init gets to it (seconds in some containers). */
function running(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2] !== 'Z';
  } catch {
    return false;
  }
}

describe('a stdout reader that goes away', () => {
  it('ends `logs` quietly with 141', async () => {
    // A cluster that is down but whose last run's logs are kept: no controller needed.
    const run = path.join(env.XDG_STATE_HOME!, 'sshcluster', 'gone', 'logs', '20240101T000000Z-abcdef');
    fs.mkdirSync(run, { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(run, 'worker-0.log'), Array.from({ length: 200_000 }, (_, i) => `line ${i}\n`).join(''));
    const r = await runReaderGone('stdout after a chunk', 'logs', '--name', 'gone', '--tail', '200000');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(141);
  });

  it('ends `exec` quietly with 141, its connection closed and the remote command ended', async () => {
    const user = makeKey();
    const server = await startTestServer({ userKeys: [user] });
    try {
      const key = path.join(tmp, 'id_ed25519');
      fs.writeFileSync(key, user.private, { mode: 0o600 });
      const hosts = path.join(tmp, 'hosts.yaml');
      fs.writeFileSync(
        hosts,
        [
          'name: reader',
          `connect_options: {username: tester, port: ${server.port}, identity_file: ${key}, known_hosts: ${path.join(tmp, 'known_hosts')}, strict_host_key_checking: "no", agent: false}`,
          'hosts: [127.0.0.1, 127.0.0.1]', // twice: the scheduler's host runs no workers else
        ].join('\n'),
      );
      const pidFile = path.join(tmp, 'remote.pid');
      // Endless unless its channel's end stops it.
      const r = await runReaderGone(
        'stdout after a chunk',
        'exec',
        hosts,
        '--no-fold',
        '--',
        `sh -c 'echo $$ > ${pidFile}; exec yes'`,
      );
      expect(r.stderr).toBe('');
      expect(r.code).toBe(141);
      await vi.waitFor(() => expect(server.open).toBe(0), { timeout: 5_000 });
      const pid = Number(fs.readFileSync(pidFile, 'utf8'));
      await vi.waitFor(() => expect(running(pid)).toBe(false), { timeout: 5_000 });
    } finally {
      await server.close();
    }
  });

  it('lets `down` run to its end: cut short, it would leave a cluster half stopped', async () => {
    const spec = { ...localClusterSpec({ cores: 2, memoryBytes: 2 ** 30, python: 'python3' }), name: 'loc' };
    const p = clusterPaths(stateRoot(env, tmp), 'loc');
    await ensureClusterDir(p);
    await writeState(p.stateFile, {
      version: 1,
      name: 'loc',
      clusterId: `no-such-id-${process.pid}`,
      spec,
      controller: null,
      schedulerAddress: 'tcp://127.0.0.1:8786',
      dashboardUrl: '',
      processes: [],
      desiredWorkers: 0,
      updatedAt: '',
    });
    expect(await runReaderGone('stdout', 'down', '--name', 'loc')).toEqual({ code: 0, stderr: '' });
    expect(fs.existsSync(p.stateFile)).toBe(false);
  });
});

// `up --detach | head -3` (or `| grep -q …`): the parent ended at once with 141, and its
// background controller, reporting start-up over the parent's channel, died of an
// unhandled EPIPE about half the time: the cluster `gone`, its processes orphaned.
describe('up --detach whose reader or parent goes away during start-up', () => {
  const cli = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { env, encoding: 'utf8' });
  const controller = () =>
    (JSON.parse(cli('list', '--json').stdout || '[]') as { name: string; controller: string }[]).find(
      (c) => c.name === 'detached',
    )?.controller;

  it('runs to its end (the cluster up, handed over, exit 0), what it prints dropped', async () => {
    try {
      const r = await runReaderGone('stdout after a chunk', 'up', '--detach', '--name', 'detached');
      expect(r).toEqual({ code: 0, stderr: '' });
      expect(controller()).toBe('running');
    } finally {
      cli('down', '--name', 'detached');
    }
  }, 120_000);

  it('leaves its controller running when the parent is killed: the cluster comes up in the background', async () => {
    try {
      const child = spawn(process.execPath, [BIN, 'up', '--detach', '--name', 'detached'], {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout.once('data', () => child.kill('SIGKILL'));
      await once(child, 'close');
      await vi.waitFor(() => expect(controller()).toBe('running'), { timeout: 60_000, interval: 200 });
      // Alive after the start-up's last report too (the crash came at a send to the dead parent).
      await vi.waitFor(
        () => expect(cli('status', '--name', 'detached', '--json').stdout).toMatch(/"desiredWorkers": 2/),
        { timeout: 60_000, interval: 200 },
      );
      expect(controller()).toBe('running');
    } finally {
      cli('down', '--name', 'detached');
    }
  }, 120_000);
});

describe('a stderr reader that goes away', () => {
  it('ends a failing command with 141 too', async () => {
    expect((await runReaderGone('stderr', 'logs', '--name', 'none')).code).toBe(141);
  });
});

describe('a stdout that cannot be written (a full disk)', () => {
  it('says so in one line and exits 1: it was a Node stack trace (helper-27)', async () => {
    for (const args of [['list'], ['list', '--json'], ['--help']]) {
      const full = fs.openSync('/dev/full', 'w');
      const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', full, 'pipe'] });
      fs.closeSync(full);
      let stderr = '';
      child.stderr!.setEncoding('utf8').on('data', (t: string) => (stderr += t));
      const [code] = (await once(child, 'close')) as [number | null];
      expect({ args, code, stderr }).toEqual({
        args,
        code: 1,
        stderr: 'sshcluster: cannot write output: ENOSPC: no space left on device, write\n',
      });
    }
  });
});

describe('pipedOutput', () => {
  const epipe = () => Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });

  it('drops what is written once the reader has gone, and says so once', async () => {
    let writes = 0;
    const stream = new Writable({ write: (_c, _e, cb) => (writes++, cb(epipe())) });
    const gone = vi.fn();
    const out = pipedOutput(stream, gone);
    out.write('a\n');
    out.write('b\n');
    await new Promise((r) => setImmediate(r));
    out.write('c\n');
    expect(writes).toBe(1);
    expect(gone).toHaveBeenCalledTimes(1);
  });

  it('takes any other error as the output gone too, with exit 1 (said on stderr, which the spawned runs above check)', () => {
    const stream = new Writable({ write: (_c, _e, cb) => cb() });
    const gone = vi.fn();
    pipedOutput(stream, gone);
    const write = vi.spyOn(fs, 'writeSync').mockImplementation(() => 0);
    try {
      stream.emit('error', Object.assign(new Error('write EIO'), { code: 'EIO' }));
      expect(write).toHaveBeenCalledWith(2, 'sshcluster: cannot write output: write EIO\n');
    } finally {
      write.mockRestore();
    }
    expect(gone).toHaveBeenCalledWith(1);
  });
});
