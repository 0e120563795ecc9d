// What a host runner needs from a transport: run a shell command string and stream
// it, or run one to completion. ssh/HostConnection and the local child-process
// transport both fit.
import type { Duplex, Readable, Writable } from 'node:stream';
import type { ExitInfo } from '../../cluster/ports.js';

export interface ExecHandle {
  stdout: Readable;
  stderr: Readable;
  /** The remote command's stdin, where the transport offers it. */
  stdin?: Writable;
  closeStdin(): void;
  exit: Promise<ExitInfo>;
  close(): void;
}

export interface ShellPort {
  exec(command: string): Promise<ExecHandle>;
  run(command: string, opts: { timeoutMs: number }): Promise<{ code: number | null; stdout: string; stderr: string }>;
  /** A TCP stream to host:port as seen from that machine (an SSH port forward). */
  forwardOut(host: string, port: number): Promise<Duplex>;
  /** Called once when the transport is gone: with an error when it died, without one after close(). */
  onClose(cb: (err?: Error) => void): void;
  close(): void;
}
