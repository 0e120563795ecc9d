// One host of `sshcluster exec`: run the command under the host's setup and env, keep
// its interleaved output (bounded), and on timeout or interrupt stop its process group
// by PID: closing an SSH channel does not signal the remote command on OpenSSH.
import { constants } from 'node:os';
import type { HostSpec } from '../../config/spec.js';
import type { HostResult, HostStatus } from './fold-output.js';
import { exportPython, quoteWord } from '../../dask/remote-shell.js';
import { hostScript, startRemote } from '../transport/remote-script.js';
import { OutputTail } from './output-tail.js';
import { CONTROL_COMMAND_TIMEOUT_MS, type ShellPort } from '../../ssh/shell-port.js';

export interface ExecHostOptions {
  command: string;
  timeoutMs: number;
  /** Called per complete output line as it arrives (--no-fold). */
  onLine?: (line: string) => void;
  /** Aborted (Ctrl-C, SIGTERM, the reader gone): the command's group is stopped as on timeout. */
  signal?: AbortSignal;
}

export async function execOnHost(h: HostSpec, shell: ShellPort, o: ExecHostOptions): Promise<HostResult> {
  // `$$` is the session leader sshd made for this command: its PID is its process group.
  // Said first, before the host's setup, which may print too. The command runs by eval,
  // so that the shell's errors number its lines, not those of the script around it
  // ("bash: -c: line 10: syntax error" for a one-line `python -c print(1)`). It gets
  // the cluster's interpreter as $SSHCLUSTER_PYTHON: the login shell's python3 may differ.
  const inv = hostScript(h, `${exportPython(h.remotePython)}\neval ${quoteWord(o.command)}`);
  const handle = await startRemote(shell, { ...inv, command: `echo $$\n${inv.command}` });
  handle.closeStdin();
  const out = new OutputTail({ onLine: o.onLine });
  let pid: number | undefined;
  let first = '';
  handle.stdout.setEncoding('utf8');
  handle.stderr.setEncoding('utf8');
  handle.stdout.on('data', (chunk: string) => {
    if (pid !== undefined) return out.push(chunk, 'out');
    first += chunk;
    const nl = first.indexOf('\n');
    if (nl < 0) return;
    pid = Number(first.slice(0, nl)) || 0;
    out.push(first.slice(nl + 1), 'out');
  });
  handle.stderr.on('data', (chunk: string) => out.push(chunk, 'err'));
  const drained = Promise.all([ended(handle.stdout), ended(handle.stderr)]);
  const done = Promise.all([handle.exit, drained]).then(([e]) => e);
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const timedOut = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), o.timeoutMs)));
  const aborted = new Promise<'aborted'>((r) => {
    onAbort = () => r('aborted');
    if (o.signal?.aborted) onAbort();
    else o.signal?.addEventListener('abort', onAbort, { once: true });
  });
  const outcome = await Promise.race([done, timedOut, aborted]);
  clearTimeout(timer);
  if (onAbort) o.signal?.removeEventListener('abort', onAbort);
  let status: HostStatus;
  if (outcome === 'timeout' || outcome === 'aborted') {
    if (pid) await stopGroup(shell, pid, h.connect.commandTimeoutMs ?? CONTROL_COMMAND_TIMEOUT_MS);
    handle.close();
    status =
      outcome === 'timeout'
        ? { kind: 'timeout', afterS: o.timeoutMs / 1000, code: 124 }
        : { kind: 'signal', signal: 'SIGTERM', code: 128 + constants.signals.SIGTERM };
  } else {
    status = exitStatus(outcome.code, outcome.signal);
  }
  out.flush();
  return { host: h.name, status, output: out.text(), truncated: out.truncated, ...(out.cut ? { cut: out.cut } : {}) };
}

async function stopGroup(shell: ShellPort, pid: number, timeoutMs: number): Promise<void> {
  const cmd =
    `kill -TERM -- -${pid} 2>/dev/null || kill -TERM ${pid} 2>/dev/null; ` +
    `(sleep 2; kill -KILL -- -${pid} 2>/dev/null) >/dev/null 2>&1 </dev/null & true`;
  await shell.run(cmd, { timeoutMs }).catch(() => undefined);
}

export function exitStatus(code: number | null, signal: string | null): HostStatus {
  if (code !== null) return { kind: 'exit', code };
  if (signal) {
    const name = signal.startsWith('SIG') ? signal : `SIG${signal}`;
    const n = (constants.signals as Record<string, number | undefined>)[name];
    return { kind: 'signal', signal: name, code: n !== undefined ? 128 + n : 255 };
  }
  // The channel closed without an exit status: the connection dropped.
  return {
    kind: 'failed',
    reason: 'dropped',
    message: 'the connection closed before the command reported an exit status',
    code: 255,
  };
}

function ended(stream: NodeJS.ReadableStream): Promise<void> {
  return new Promise((resolve) => {
    stream.once('end', resolve);
    stream.once('close', resolve);
    stream.once('error', () => resolve());
  });
}
