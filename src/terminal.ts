// The process-facing pieces of the AppContext: signals and a no-echo prompt.
import fs from 'node:fs';
import os from 'node:os';
import readline from 'node:readline';
import { Writable } from 'node:stream';
import type { AppContext } from './app/context.js';
import { ExpectedError } from './errors.js';

export function processContext(): AppContext {
  return {
    env: process.env,
    pid: process.pid,
    cwd: process.cwd(),
    homedir: os.homedir(),
    username: safeUsername(),
    cores: os.availableParallelism(),
    memoryBytes: os.totalmem(),
    stdout: { write: (t) => void process.stdout.write(t), isTTY: process.stdout.isTTY },
    stderr: { write: (t) => void process.stderr.write(t), isTTY: process.stderr.isTTY },
    onSignal(handler) {
      const int = () => handler('SIGINT');
      const term = () => handler('SIGTERM');
      process.on('SIGINT', int);
      process.on('SIGTERM', term);
      return () => {
        process.off('SIGINT', int);
        process.off('SIGTERM', term);
      };
    },
    ...(process.stdout.isTTY && process.stdin.isTTY ? { tty: { stdout: process.stdout, stdin: process.stdin } } : {}),
    promptSecret,
  };
}

function safeUsername(): string {
  try {
    return os.userInfo().username;
  } catch {
    return process.env.USER ?? 'root';
  }
}

async function promptSecret(question: string): Promise<string> {
  let fd: number;
  try {
    fd = fs.openSync('/dev/tty', 'r+');
  } catch {
    throw new ExpectedError(`${question.replace(/: $/, '')} is needed but there is no terminal to ask on`, {
      hint: 'give it through an environment variable: {env: VAR_NAME} in the host file',
    });
  }
  const input = fs.createReadStream('', { fd, autoClose: false });
  const tty = fs.createWriteStream('', { fd, autoClose: false });
  tty.write(question);
  const muted = new Writable({ write: (_c, _e, cb) => cb() });
  const rl = readline.createInterface({ input, output: muted, terminal: true });
  try {
    return await new Promise<string>((resolve) => rl.once('line', resolve));
  } finally {
    tty.write('\n');
    rl.close();
    input.destroy();
    fs.closeSync(fd);
  }
}
