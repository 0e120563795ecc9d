// An AppContext for app-level tests: output captured, a private state dir, no terminal.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AppContext } from '../../../src/app/context.js';

export interface TestContext extends AppContext {
  out: () => string;
  err: () => string;
  /** The temporary XDG_STATE_HOME; remove it with cleanup(). */
  stateHome: string;
  cleanup(): void;
}

export function testContext(env: Record<string, string | undefined> = {}): TestContext {
  const stateHome = fs.mkdtempSync(path.join(os.tmpdir(), 'sshc-ctx-'));
  let out = '';
  let err = '';
  return {
    env: { XDG_STATE_HOME: stateHome, PATH: process.env.PATH, ...env },
    pid: process.pid,
    cwd: stateHome,
    homedir: stateHome,
    username: 'tester',
    cores: 2,
    memoryBytes: 4 * 2 ** 30,
    stdout: { write: (t) => void (out += t), isTTY: false },
    stderr: { write: (t) => void (err += t), isTTY: false },
    onReaderGone: () => undefined,
    onSignal: () => () => undefined,
    promptSecret: async () => '',
    out: () => out,
    err: () => err,
    stateHome,
    cleanup: () => fs.rmSync(stateHome, { recursive: true, force: true }),
  };
}
