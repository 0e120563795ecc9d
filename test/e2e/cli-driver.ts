// Runs the built CLI (bin/sshcluster) as a user would and watches its output.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { clientPython } from './harness/context.js';

const BIN = path.resolve(import.meta.dirname, '../../bin/sshcluster');
// Each test file gets its own state directory (control sockets, state files, logs):
// this module is loaded anew per file. It goes with the file, by a hook registered
// before the file's own, so it runs after them (vitest runs after-hooks in reverse): a
// file's `down` in afterAll still finds its cluster.
export const STATE_HOME = fs.mkdtempSync(path.join(os.tmpdir(), 'sshc-state-'));
afterAll(() => fs.rmSync(STATE_HOME, { recursive: true, force: true }));
const baseEnv = () => ({ ...process.env, NO_COLOR: '1', XDG_STATE_HOME: STATE_HOME });

export interface CliRun {
  child: ChildProcess;
  output: () => string;
  waitFor(re: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `group`: in its own process group, as a terminal runs a foreground job (see interruptGroup). */
export function startCli(args: string[], env: Record<string, string> = {}, o: { group?: boolean } = {}): CliRun {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...baseEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: o.group === true,
  });
  let out = '';
  const waiters: (() => void)[] = [];
  const onData = (d: Buffer) => {
    out += d.toString('utf8');
    if (out.length > 4_000_000) out = out.slice(-2_000_000);
    for (const w of waiters) w();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.on('close', (code, signal) => r({ code, signal })),
  );
  return {
    child,
    output: () => out,
    exited,
    waitFor(re, timeoutMs = 120_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = re.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve(m);
          }
        };
        const timer = setTimeout(
          () => reject(new Error(`timed out waiting for ${re}; output so far:\n${out.slice(-4000)}`)),
          timeoutMs,
        );
        waiters.push(check);
        void exited.then(() =>
          setTimeout(() => reject(new Error(`CLI exited before ${re}; output:\n${out.slice(-4000)}`)), 50),
        );
        check();
      });
    },
  };
}

/** Ctrl-C as a terminal sends it: SIGINT to every process of the foreground group. */
export function interruptGroup(run: CliRun): void {
  process.kill(-run.child.pid!, 'SIGINT');
}

/** Runs the CLI to completion. */
/** `via`: a command that runs its arguments, e.g. `['sh', '-c', 'ulimit -Sn 256 && exec "$0" "$@"']`. */
export function runCli(args: string[], env: Record<string, string> = {}, timeoutMs = 60_000, via: string[] = []) {
  const [file, ...pre] = [...via, process.execPath, BIN, ...args] as [string, ...string[]];
  const r = spawnSync(file, pre, { env: { ...baseEnv(), ...env }, encoding: 'utf8', timeout: timeoutMs });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A Dask client in the hosts' Dask version (clientPython()): connects, reports, computes. */
export function daskClient(address: string, code: string, timeoutMs = 90_000) {
  const script = `
import json, sys
from distributed import Client
c = Client(${JSON.stringify(address)}, timeout=30)
${code}
c.close()
`;
  const r = spawnSync(clientPython(), ['-c', script], { encoding: 'utf8', timeout: timeoutMs });
  if (r.status !== 0) throw new Error(`python client failed (${r.status}): ${r.stderr.slice(-3000)}`);
  return r.stdout;
}

/** A Dask client in the background (json, time and wait imported); resolves with its stdout. */
export function daskClientInBackground(address: string, code: string): Promise<string> {
  const script = `import json, time\nfrom distributed import Client, wait\nc = Client(${JSON.stringify(address)}, timeout=60)\n${code}\nc.close()\n`;
  return new Promise((resolve, reject) => {
    const p = spawn(clientPython(), ['-c', script]);
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    p.on('close', (c) => (c === 0 ? resolve(out) : reject(new Error(`client exited ${c}: ${err.slice(-2000)}`))));
  });
}

/** Polls `fn` until it gives a value (not undefined); the bound is a failure, never a pass. */
export async function until<T>(what: string, fn: () => T | undefined, timeoutMs = 60_000, everyMs = 300): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
