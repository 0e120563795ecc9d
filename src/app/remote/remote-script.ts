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
    throw new Error('this transport cannot write to a command\'s stdin, where its environment goes');
  }
  handle.stdin.write(inv.input);
  return handle;
}
