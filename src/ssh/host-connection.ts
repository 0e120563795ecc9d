// All SSH traffic to one host: connections reused for every process, opened on
// demand when sshd's MaxSessions (10 by default) would refuse another channel.
import type { Duplex } from 'node:stream';
import type { ConnectSpec } from '../config/spec.js';
import { openClient, type ConnectContext, type OpenedClient } from './connect.js';
import { asSocketLike, channelOf, collect, isOpenFailure, wrapChannel, type ExecHandle } from './exec-handle.js';
import type { ShellPort } from './shell-port.js';
import { closedError, SshError, toSshError } from './ssh-error.js';

export type { ExecHandle, ExitStatus } from './exec-handle.js';

export interface HostConnectionOptions {
  /** Session channels per SSH connection before another connection is opened. */
  maxChannelsPerConnection?: number;
}

export interface RunResult {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  /** Output beyond maxBytes was dropped. */
  truncated: boolean;
}

interface Conn {
  opened: OpenedClient;
  sessions: number;
  limit: number;
  /** Resolves when this connection is gone. */
  gone: Promise<void>;
}

const DEFAULT_RUN_MAX_BYTES = 1024 * 1024;

export class HostConnection implements ShellPort {
  readonly authMethod: string;
  readonly notes: string[];
  private readonly conns: Conn[] = [];
  private opening: Promise<Conn> | undefined;
  private closed = false;
  private closeReason: SshError | undefined;
  private readonly closeCbs: Array<(err?: SshError) => void> = [];
  private readonly limit: number;

  private constructor(
    private readonly spec: ConnectSpec,
    private readonly ctx: ConnectContext,
    opts: HostConnectionOptions,
    first: OpenedClient,
  ) {
    this.limit = Math.max(1, opts.maxChannelsPerConnection ?? 10);
    this.authMethod = first.authMethod;
    this.notes = first.notes;
    this.adopt(first);
  }

  static async open(spec: ConnectSpec, ctx: ConnectContext, opts: HostConnectionOptions = {}): Promise<HostConnection> {
    return new HostConnection(spec, ctx, opts, await openClient(spec, ctx));
  }

  /** Number of SSH connections currently open to the host. */
  get connectionCount(): number {
    return this.conns.length;
  }

  /** Run `command` through the remote user's shell, without a pty. */
  async exec(command: string): Promise<ExecHandle> {
    let retried = false;
    for (;;) {
      const conn = await this.acquire();
      try {
        // Wrapped inside ssh2's callback: a fast command's exit-status can arrive in the
        // same read as the exec reply, before a promise continuation would attach listeners.
        let handle: ExecHandle | undefined;
        await channelOf((cb) =>
          conn.opened.client.exec(command, (err, ch) => {
            if (!err) handle = wrapChannel(ch, () => (conn.sessions -= 1), conn.gone);
            cb(err, ch);
          }),
        );
        return handle!;
      } catch (err) {
        conn.sessions -= 1;
        if (this.closed || retried || !isOpenFailure(err)) throw this.mapError(err);
        // The server has a lower limit than we assumed: remember it, use another connection.
        conn.limit = conn.sessions;
        retried = true;
      }
    }
  }

  async run(command: string, opts: { timeoutMs: number; maxBytes?: number }): Promise<RunResult> {
    const handle = await this.exec(command);
    handle.closeStdin();
    const max = opts.maxBytes ?? DEFAULT_RUN_MAX_BYTES;
    const all = Promise.all([handle.exit, collect(handle.stdout, max), collect(handle.stderr, max)]);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        handle.close();
        const secs = opts.timeoutMs / 1000;
        reject(new SshError('timeout', this.spec.alias, `remote command did not finish within ${secs}s`));
      }, opts.timeoutMs);
    });
    try {
      const [exit, out, err] = await Promise.race([all, timeout]);
      return { ...exit, stdout: out.text, stderr: err.text, truncated: out.truncated || err.truncated };
    } finally {
      clearTimeout(timer);
    }
  }

  /** A direct-tcpip tunnel to host:port as the remote host sees it; usable as an http socket. */
  async forwardOut(host: string, port: number): Promise<Duplex> {
    if (this.closed) throw this.closedErr();
    const conn = this.conns[0];
    if (!conn) throw this.closedErr();
    try {
      const stream = await channelOf((cb) => conn.opened.client.forwardOut('127.0.0.1', 0, host, port, cb));
      return asSocketLike(stream);
    } catch (err) {
      if (this.closed) throw this.closedErr();
      const why = err instanceof Error ? err.message : String(err);
      throw new SshError('unreachable', this.spec.alias, `cannot open a tunnel to ${host}:${port} (${why})`, {
        hint: 'is the service listening there, and does sshd allow TCP forwarding?',
        cause: err,
      });
    }
  }

  /** `cb` runs once when the connection(s) are gone: with an error unless close() was called. */
  onClose(cb: (err?: SshError) => void): void {
    if (this.closed) queueMicrotask(() => cb(this.closeReason));
    else this.closeCbs.push(cb);
  }

  close(): void {
    this.shutdown(undefined);
  }

  private shutdown(reason: SshError | undefined): void {
    if (this.closed) return;
    this.closed = true;
    this.closeReason = reason;
    for (const c of this.conns) c.opened.client.end();
    for (const cb of this.closeCbs.splice(0)) cb(reason);
  }

  private adopt(opened: OpenedClient): Conn {
    let lastError: unknown;
    const gone = new Promise<void>((resolve) => opened.client.once('close', () => resolve()));
    const conn: Conn = { opened, sessions: 0, limit: this.limit, gone };
    opened.client.on('error', (err) => (lastError = err));
    void gone.then(() => {
      this.conns.splice(this.conns.indexOf(conn), 1);
      // One dropped connection means the host (or the path to it) dropped: report it once.
      const err = lastError === undefined ? closedError(this.spec.alias) : this.mapError(lastError);
      this.shutdown(err);
    });
    this.conns.push(conn);
    return conn;
  }

  /** A connection with a free session slot, reserved for the caller. */
  private async acquire(): Promise<Conn> {
    for (;;) {
      if (this.closed) throw this.closedErr();
      const conn = this.conns.find((c) => c.sessions < c.limit);
      if (conn) {
        conn.sessions += 1;
        return conn;
      }
      this.opening ??= this.addConnection().finally(() => (this.opening = undefined));
      await this.opening;
    }
  }

  private async addConnection(): Promise<Conn> {
    const opened = await openClient(this.spec, this.ctx);
    if (!this.closed) return this.adopt(opened);
    opened.client.end();
    throw this.closedErr();
  }

  private closedErr(): SshError {
    return this.closeReason ?? closedError(this.spec.alias);
  }

  private mapError(err: unknown): SshError {
    if (this.closed) return this.closedErr();
    const { alias, hostname, port, connectTimeoutMs } = this.spec;
    return toSshError(err, {
      alias,
      hostname,
      port,
      ready: true,
      timeoutMs: connectTimeoutMs,
      triedMethods: [],
      notes: [],
    });
  }
}
