// The process-facing pieces of the AppContext: stdout and stderr, signals and a no-echo
// prompt.
import fs from 'node:fs';
import os from 'node:os';
import readline from 'node:readline';
import { Writable } from 'node:stream';
import type { AppContext, Output } from './app/context.js';
import { ExpectedError, READER_GONE_EXIT } from './errors.js';

export function processContext(): AppContext {
  const reader = readerPolicy();
  return {
    env: process.env,
    pid: process.pid,
    cwd: process.cwd(),
    homedir: os.homedir(),
    username: safeUsername(),
    cores: os.availableParallelism(),
    memoryBytes: os.totalmem(),
    stdout: pipedOutput(process.stdout, reader.gone),
    stderr: pipedOutput(process.stderr, reader.gone),
    onReaderGone: reader.onGone,
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

/**
 * Once stdout's or stderr's reader has gone (`| head`) the process ends at once and
 * quietly, as a C tool killed by SIGPIPE does (Node ignores SIGPIPE: the write fails with
 * EPIPE instead), and with its code: `set -o pipefail` scripts see that the output was
 * cut, and a plain pipeline's status is still the reader's. Exiting closes the SSH
 * connections. A command that, cut short, would leave something half-done says what to
 * do instead (AppContext.onReaderGone).
 */
function readerPolicy(): { gone: (code?: number) => void; onGone: (handler?: () => void) => void } {
  let handler: (() => void) | undefined;
  let told = false;
  return {
    gone: (code = READER_GONE_EXIT) => {
      if (!handler) process.exit(code);
      if (!told) ((told = true), handler());
    },
    onGone: (h = () => undefined) => void (handler = h),
  };
}

/**
 * A stream as an Output: what is written once its reader has gone is dropped, and
 * `readerGone` is told. Any other write error (a full disk: ENOSPC) is said once on
 * stderr, then handled the same way, with exit 1: it was a Node stack trace.
 */
export function pipedOutput(stream: Writable & { isTTY?: boolean }, readerGone: (code?: number) => void): Output {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') return readerGone();
    try {
      fs.writeSync(2, `sshcluster: cannot write output: ${err.message}\n`);
    } catch {
      // stderr is what failed
    }
    readerGone(1);
  });
  // Not written to once closed: Node queues an error per write to a destroyed stream,
  // and `logs` can write thousands of lines before the EPIPE's 'error' event comes.
  return { write: (t) => void (stream.writable && stream.write(t)), isTTY: stream.isTTY };
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
