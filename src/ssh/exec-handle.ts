// A remote command's channel seen as a child process: stdout, stderr, stdin EOF, exit.
import type { Duplex, Readable, Writable } from 'node:stream';
import type { ClientChannel } from 'ssh2';

export interface ExitStatus {
  code: number | null;
  signal: string | null;
}

export interface ExecHandle {
  stdout: Readable;
  stderr: Readable;
  /** The remote command's stdin; closeStdin() ends it. */
  stdin: Writable;
  /** Send EOF on the remote command's stdin. */
  closeStdin(): void;
  /**
   * Resolves with the exit status, or {null, null} when the channel or connection
   * closed without one. Read (or resume) stdout and stderr: like a child process, the
   * channel only finishes once they are drained.
   */
  exit: Promise<ExitStatus>;
  /** Close the channel. This does not reliably signal the remote process (OpenSSH). */
  close(): void;
}

/** `onDone` runs once, on exit or close, so the caller can free the channel slot. */
export function wrapChannel(channel: ClientChannel, onDone: () => void, connectionGone: Promise<void>): ExecHandle {
  let done = false;
  let resolveExit: (s: ExitStatus) => void = () => {};
  const exit = new Promise<ExitStatus>((resolve) => (resolveExit = resolve));
  const finish = (status: ExitStatus): void => {
    if (done) return;
    done = true;
    resolveExit(status);
    onDone();
  };
  channel.on('exit', (code: number | null, signal?: string) => {
    finish({ code: code ?? null, signal: signal ?? null });
  });
  channel.on('close', () => finish({ code: null, signal: null }));
  void connectionGone.then(() => finish({ code: null, signal: null }));
  return {
    stdout: channel,
    stderr: channel.stderr,
    stdin: channel,
    closeStdin: () => {
      if (channel.writable) channel.end();
    },
    exit,
    close: () => channel.close(),
  };
}

export interface Collected {
  text: string;
  truncated: boolean;
}

/** Read a stream to its end keeping at most `maxBytes` (the beginning). */
export function collect(stream: Readable, maxBytes: number): Promise<Collected> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let truncated = false;
    stream.on('data', (chunk: Buffer | string) => {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      const room = maxBytes - size;
      if (buf.length > room) truncated = true;
      if (room > 0) {
        const part = buf.subarray(0, room);
        chunks.push(part);
        size += part.length;
      }
    });
    const end = (): void => resolve({ text: Buffer.concat(chunks).toString('utf8'), truncated });
    stream.once('end', end);
    stream.once('close', end);
    stream.once('error', end);
  });
}

export function channelOf(
  start: (cb: (err: Error | undefined, ch: ClientChannel) => void) => void,
): Promise<ClientChannel> {
  return new Promise((resolve, reject) => {
    try {
      start((err, ch) => (err ? reject(err) : resolve(ch)));
    } catch (err) {
      reject(err); // ssh2 throws "Not connected" synchronously
    }
  });
}

export function isOpenFailure(err: unknown): boolean {
  return err instanceof Error && /channel open failure|no free channels/i.test(err.message);
}

/** http.request({ createConnection }) calls socket methods a channel lacks; stub them like ssh2's HTTPAgent. */
export function asSocketLike(stream: ClientChannel): Duplex {
  const s = stream as ClientChannel & Record<string, unknown>;
  for (const name of ['setKeepAlive', 'setNoDelay', 'setTimeout', 'ref', 'unref']) {
    if (typeof s[name] !== 'function') s[name] = () => s;
  }
  return stream;
}
