// The launcher for real: /usr/bin/python3 runs it, `sleep`/`sh` are the children.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { LAUNCHER } from '../../src/dask/launcher.js';
import { parseLauncherPid } from '../../src/dask/log-lines.js';

const PYTHON = '/usr/bin/python3';
const started: number[] = [];

interface Launched {
  proc: ChildProcessWithoutNullStreams;
  lines: string[];
  stderr: () => string;
  exit: Promise<{ code: number | null; signal: string | null }>;
  pid: Promise<number>;
  nextLine: () => Promise<string>;
}

function launch(argv: string[], graceS = 1): Launched {
  const proc = spawn(PYTHON, ['-c', LAUNCHER, ...argv], {
    env: { PATH: '/usr/bin:/bin', SSHCLUSTER_GRACE: String(graceS) },
  });
  started.push(proc.pid!);
  let err = '';
  proc.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const lines: string[] = [];
  const waiters: ((l: string) => void)[] = [];
  createInterface({ input: proc.stdout }).on('line', (l) => {
    const w = waiters.shift();
    if (w) w(l);
    else lines.push(l);
  });
  const nextLine = (): Promise<string> => {
    const l = lines.shift();
    return l !== undefined ? Promise.resolve(l) : new Promise((r) => waiters.push(r));
  };
  const exit = new Promise<{ code: number | null; signal: string | null }>((r) =>
    proc.on('exit', (code, signal) => r({ code, signal })),
  );
  const pid = nextLine().then((l) => {
    const p = parseLauncherPid(l);
    if (p === undefined) throw new Error(`not a PID line: ${l}`);
    started.push(p);
    return p;
  });
  return { proc, lines, stderr: () => err, exit, pid, nextLine };
}

/** pgrp and session of a live process, from /proc/<pid>/stat; undefined once gone. */
function stat(pid: number): { state: string; pgrp: number; session: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0]!, pgrp: Number(fields[2]), session: Number(fields[3]) };
  } catch {
    return undefined;
  }
}

/** Gone, or a zombie waiting for a reaper that is not ours. */
const isDead = (pid: number): boolean => {
  const s = stat(pid);
  return s === undefined || s.state === 'Z';
};

async function until(cond: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return cond();
}

afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

describe('launcher', () => {
  it('prints the child PID; the child leads its own session and process group', async () => {
    const l = launch(['sleep', '30']);
    const pid = await l.pid;
    expect(pid).not.toBe(l.proc.pid);
    expect(stat(pid)).toMatchObject({ pgrp: pid, session: pid });
    // The PID line comes just before the exec, so the command shows up a moment later.
    const argv0 = (): string | undefined => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0];
    expect(await until(() => argv0() === 'sleep', 2000)).toBe(true);
    l.proc.stdin.end();
    await l.exit;
  });

  it('stops the child when its stdin closes (the SSH session ended)', async () => {
    const l = launch(['sleep', '30'], 5);
    const pid = await l.pid;
    const t0 = Date.now();
    l.proc.stdin.end();
    expect(await l.exit).toEqual({ code: 128 + 15, signal: null });
    expect(Date.now() - t0).toBeLessThan(4000);
    expect(isDead(pid)).toBe(true);
  });

  it('exits with the child exit code', async () => {
    const l = launch(['sh', '-c', 'exit 7']);
    expect(await l.pid).toBeGreaterThan(0);
    expect((await l.exit).code).toBe(7);
  });

  it('stops the child on SIGTERM to the launcher', async () => {
    const l = launch(['sleep', '30']);
    const pid = await l.pid;
    l.proc.kill('SIGTERM');
    expect((await l.exit).code).toBe(143);
    expect(isDead(pid)).toBe(true);
  });

  it('kills grandchildren in the group, with SIGKILL after the grace period if TERM is ignored', async () => {
    const l = launch(['sh', '-c', 'trap "" TERM; sleep 60 & echo $!; wait'], 1);
    const pid = await l.pid;
    const grandchild = Number(await l.nextLine());
    started.push(grandchild);
    expect(stat(grandchild)?.pgrp).toBe(pid);
    const t0 = Date.now();
    l.proc.kill('SIGTERM');
    expect((await l.exit).code).toBe(128 + 9);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
    expect(await until(() => isDead(grandchild), 2000)).toBe(true);
  });

  it('cleans up what the child left behind when it exits on its own', async () => {
    const l = launch(['sh', '-c', 'sleep 60 & echo $!; exit 3']);
    await l.pid;
    const grandchild = Number(await l.nextLine());
    started.push(grandchild);
    expect((await l.exit).code).toBe(3);
    expect(await until(() => isDead(grandchild), 2000)).toBe(true);
  });

  it('reports a command that cannot be executed: PID line, message on stderr, exit 127', async () => {
    const l = launch(['/nonexistent/dask-worker']);
    expect(await l.pid).toBeGreaterThan(0);
    expect((await l.exit).code).toBe(127);
    expect(l.lines).toEqual([]);
    expect(l.stderr()).toMatch(/sshcluster-launcher: cannot run \/nonexistent\/dask-worker: .*No such file/);
  });

  it('prints the PID line first even when the child writes to stdout at once', async () => {
    const l = launch(['echo', 'hello']);
    expect(await l.pid).toBeGreaterThan(0);
    expect(await l.nextLine()).toBe('hello');
    expect((await l.exit).code).toBe(0);
  });
});
