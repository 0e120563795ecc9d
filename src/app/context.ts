// Everything the app layer takes from the outside world, passed in by main.ts so that
// nothing below app/ reads process.* and tests can hand in their own.
export interface Output {
  write(text: string): void;
  isTTY?: boolean;
}

export interface AppContext {
  env: Record<string, string | undefined>;
  pid: number;
  cwd: string;
  homedir: string;
  username: string;
  cores: number;
  memoryBytes: number;
  stdout: Output;
  stderr: Output;
  /**
   * Once stdout's or stderr's reader has gone (EPIPE: `| head`) the process exits 141 at
   * once; after this call that output is dropped and `handler` runs instead (default:
   * nothing, the command runs on): for a command that, cut short, would leave something
   * half-done (`up` runs a cluster, `down` stops one, `exec` stops its remote commands).
   */
  onReaderGone(handler?: () => void): void;
  /** Registers a handler for SIGINT/SIGTERM; returns an unregister function. */
  onSignal(handler: (signal: 'SIGINT' | 'SIGTERM') => void): () => void;
  /** The terminal's streams, for the dashboard; absent when stdin or stdout is not a TTY. */
  tty?: { stdout: NodeJS.WriteStream; stdin: NodeJS.ReadStream };
  /** Reads a line from the terminal without echo (password prompts). */
  promptSecret(question: string): Promise<string>;
}
