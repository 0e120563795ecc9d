// Runs the launcher (and the keeper) for real under /usr/bin/python3, from their files
// in src/dask/remote/, for the unit tests of both; every PID seen is killed after each test.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import { parseLauncherPid } from '../../../../src/dask/log-lines.js';
import { remoteProgram, type ProgramFile } from '../../../../src/dask/remote-programs.js';
import type { RemoteInvocation } from '../../../../src/dask/remote-shell.js';

export const PYTHON = '/usr/bin/python3';
export const started: number[] = [];

export interface Launched {
  proc: ChildProcessWithoutNullStreams;
  lines: string[];
  stderr: () => string;
  exit: Promise<{ code: number | null; signal: string | null }>;
  pid: Promise<number>;
  nextLine: () => Promise<string>;
}

/** A program of src/dask/remote/ by its file name. */
export const programPath = (file: string): string =>
  fileURLToPath(new URL(`../../../../src/dask/remote/${file}`, import.meta.url));

/**
 * `python [FLAGS] PROGRAM args…` with the PID-line protocol on its stdout; PROGRAM is a
 * path or `-c` source, FLAGS the interpreter options it runs with on a host.
 */
export function runProgram(
  program: string,
  args: string[],
  env: Record<string, string>,
  flags: readonly string[] = [],
): Launched {
  const head = program.includes('\n') ? ['-c', program] : [program];
  const proc = spawn(PYTHON, [...flags, ...head, ...args], { env: { PATH: '/usr/bin:/bin', ...env } });
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
  pid.catch(() => {});
  return { proc, lines, stderr: () => err, exit, pid, nextLine };
}

// As boot.py installs a program on a host: its text as shipped, under its program name
// (which the keeper looks for). One copy per test file (each imports this module
// afresh), removed after its tests.
let programsDir = '';
afterAll(() => {
  if (programsDir) rmSync(programsDir, { recursive: true, force: true });
});
export function installedPath(file: ProgramFile): string {
  programsDir ||= mkdtempSync(path.join(os.tmpdir(), 'sshc-programs-'));
  const p = remoteProgram(file);
  const at = path.join(programsDir, p.name);
  writeFileSync(at, p.source);
  return at;
}

export function launch(argv: string[], graceS = 1, env: Record<string, string> = {}, name = 'test-0'): Launched {
  return runProgram(
    installedPath('launcher'),
    [name, ...argv],
    { SSHCLUSTER_GRACE: String(graceS), ...env },
    remoteProgram('launcher').flags,
  );
}

/** pgrp and session of a live process, from /proc/<pid>/stat; undefined once gone. */
export function stat(pid: number): { state: string; pgrp: number; session: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0]!, pgrp: Number(fields[2]), session: Number(fields[3]) };
  } catch {
    return undefined;
  }
}

/** Gone, or a zombie waiting for a reaper that is not ours. */
export const isDead = (pid: number): boolean => {
  const s = stat(pid);
  return s === undefined || s.state === 'Z';
};

export async function until(cond: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return cond();
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function killStarted(): void {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

export interface ShellRun {
  proc: ChildProcessWithoutNullStreams;
  out: () => string;
  err: () => string;
  /** The shell's exit code, once its output is all read. */
  exit: Promise<number | null>;
}

/** Runs an invocation as sshd would: `SHELL -c command` under `env`, input written at once, stdin kept open; killStarted() ends it. */
export function runAsSshd(shell: string, inv: RemoteInvocation, env: Record<string, string>): ShellRun {
  const proc = spawn(shell, ['-c', inv.command], { env });
  started.push(proc.pid!);
  proc.stdin.write(inv.input);
  let out = '';
  let err = '';
  proc.stdout.on('data', (c: Buffer) => (out += c.toString()));
  proc.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const exit = new Promise<number | null>((r) => proc.on('close', (code) => r(code)));
  return { proc, out: () => out, err: () => err, exit };
}
