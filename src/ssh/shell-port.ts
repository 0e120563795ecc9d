// What a host runner needs from a transport: run a shell command string and stream
// it, or run one to completion. HostConnection (SSH) and app/'s local child-process
// transport both implement it; it lives here, beside the SSH one, so that one can say so.
import type { Duplex } from 'node:stream';
import type { ExecHandle } from './exec-handle.js';

/** How long a short control command we run on a host (a kill, a scan) may take. */
export const CONTROL_COMMAND_TIMEOUT_MS = 15_000;

export interface ShellPort {
  exec(command: string): Promise<ExecHandle>;
  run(command: string, opts: { timeoutMs: number }): Promise<{ code: number | null; stdout: string; stderr: string }>;
  /** A TCP stream to host:port as seen from that machine (an SSH port forward). */
  forwardOut(host: string, port: number): Promise<Duplex>;
  /** Called once when the transport is gone: with an error when it died, without one after close(). */
  onClose(cb: (err?: Error) => void): void;
  close(): void;
}
