// The local transport: `sh -c` child processes, for `up` without a host file.
import { spawn } from 'node:child_process';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import type { ExitInfo } from '../../cluster/ports.js';
import type { ShellPort } from '../../ssh/shell-port.js';
import type { ExecHandle } from '../../ssh/exec-handle.js';

export class LocalShell implements ShellPort {
  constructor(private readonly env: Record<string, string | undefined>) {}

  async exec(command: string): Promise<ExecHandle> {
    // A session of its own: the terminal's Ctrl-C (SIGINT to the whole foreground group)
    // must reach only the controller, which then retires and stops these in order.
    const child = spawn('/bin/sh', ['-c', command], { env: this.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    const exit = new Promise<ExitInfo>((resolve) => {
      child.on('error', () => resolve({ code: 127, signal: null }));
      child.on('close', (code, signal) => resolve({ code, signal }));
    });
    child.stdin.on('error', () => {}); // EPIPE once the child is gone is expected
    return {
      stdout: child.stdout,
      stderr: child.stderr,
      stdin: child.stdin,
      closeStdin: () => child.stdin.end(),
      exit,
      close: () => child.stdin.destroy(),
    };
  }

  async run(command: string, opts: { timeoutMs: number }) {
    const h = await this.exec(command);
    h.closeStdin();
    let stdout = '';
    let stderr = '';
    h.stdout.setEncoding('utf8').on('data', (d: string) => (stdout = (stdout + d).slice(-1_000_000)));
    h.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-1_000_000)));
    const timer = new Promise<ExitInfo>((r) =>
      setTimeout(() => r({ code: null, signal: 'TIMEOUT' }), opts.timeoutMs).unref(),
    );
    const exit = await Promise.race([h.exit, timer]);
    return { code: exit.code, stdout, stderr };
  }

  async forwardOut(host: string, port: number): Promise<Duplex> {
    return await new Promise((resolve, reject) => {
      const s = net.connect({ host, port, noDelay: true }, () => resolve(s));
      s.once('error', reject);
    });
  }

  onClose(): void {
    // Child processes of this machine have no connection to lose.
  }

  close(): void {}
}
