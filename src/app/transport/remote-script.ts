// A host's command as `up` runs its processes: the host's setup lines, its env (sent
// on stdin, never on a command line: dask/remote-shell.ts), then the body. Runs under
// the remote login shell (POSIX-like, as for up).
import type { HostSpec } from '../../config/spec.js';
import { envInput, shellScript, type RemoteInvocation } from '../../dask/remote-command.js';
import type { ShellPort } from '../../ssh/shell-port.js';
import type { ExecHandle } from '../../ssh/exec-handle.js';

export function hostScript(h: Pick<HostSpec, 'setup' | 'env'>, body: string, input = ''): RemoteInvocation {
  return { command: shellScript(h.setup, body), input: envInput(h.env) + input };
}

/** Runs the command and writes its input at once; stdin stays open. */
export async function startRemote(shell: ShellPort, inv: RemoteInvocation): Promise<ExecHandle> {
  const handle = await shell.exec(inv.command);
  if (!handle.stdin) {
    handle.close();
    throw new Error("this transport cannot write to a command's stdin, where its environment goes");
  }
  handle.stdin.write(inv.input);
  return handle;
}

const MAX_SCRIPT_OUTPUT = 64 * 1024;

/**
 * Runs the command with its input, closes its stdin and waits for it to end, keeping
 * at most 64 KiB of each stream; past `timeoutMs` the channel is closed and it fails.
 */
export async function runRemote(
  shell: ShellPort,
  inv: RemoteInvocation,
  timeoutMs: number,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const handle = await startRemote(shell, inv);
  handle.closeStdin();
  const keep = (stream: NodeJS.ReadableStream) => {
    let text = '';
    stream.setEncoding('utf8');
    stream.on('data', (d: string) => (text = (text + d).slice(-MAX_SCRIPT_OUTPUT)));
    return () => text;
  };
  const out = keep(handle.stdout);
  const err = keep(handle.stderr);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      handle.close();
      reject(new Error(`no answer within ${timeoutMs / 1000}s`));
    }, timeoutMs);
  });
  try {
    const exit = await Promise.race([handle.exit, late]);
    return { code: exit.code, stdout: out(), stderr: err() };
  } finally {
    clearTimeout(timer);
  }
}
