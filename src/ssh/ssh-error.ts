// Every failure the SSH layer reports is an SshError: a reason the app can switch on,
// the host alias, a message and a hint. Messages are built from our own words and the
// spec's host/port only; no secret ever reaches them.
import { ExpectedError } from '../errors.js';
import { HANDSHAKE_TOTAL_FACTOR, type DeadlineMiss } from './handshake-deadline.js';

export type SshErrorReason = 'unreachable' | 'timeout' | 'auth' | 'host-key' | 'reset' | 'protocol';

export class SshError extends ExpectedError {
  readonly reason: SshErrorReason;
  readonly host: string;
  constructor(reason: SshErrorReason, host: string, message: string, opts: { hint?: string; cause?: unknown } = {}) {
    super(`${host}: ${message}`, { hint: opts.hint, cause: opts.cause, exitCode: 1 });
    this.reason = reason;
    this.host = host;
  }
}

export interface ErrorContext {
  alias: string;
  hostname: string;
  port: number;
  /** false until the SSH handshake (key exchange + auth) has completed. */
  ready: boolean;
  timeoutMs: number;
  /** Auth methods tried, in order, e.g. ["agent", "publickey ~/.ssh/id_ed25519"]. */
  triedMethods: string[];
  /** Why some candidate methods were not tried (encrypted key without passphrase …). */
  notes: string[];
}

const UNREACHABLE = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTDOWN']);
const RESET_HINT = 'connection reset during key exchange: likely sshd MaxStartups; lower --fanout';

/** Map whatever ssh2 / net threw to an SshError. */
export function toSshError(err: unknown, ctx: ErrorContext): SshError {
  if (err instanceof SshError) return err;
  const e: Error & { code?: unknown; level?: unknown } = err instanceof Error ? err : new Error(String(err));
  const code = typeof e.code === 'string' ? e.code : undefined;
  const where = `${ctx.hostname}:${ctx.port}`;
  const cause = { cause: err };
  if (code && UNREACHABLE.has(code)) {
    return new SshError('unreachable', ctx.alias, `cannot reach ${where} (${code})`, {
      hint: `check the host name and that sshd listens on port ${ctx.port}`,
      ...cause,
    });
  }
  if (code === 'ETIMEDOUT' || e.level === 'client-timeout' || /timed out|timeout/i.test(e.message)) {
    if (!ctx.ready) return timeoutError(ctx, cause);
    return new SshError('timeout', ctx.alias, `${where} stopped answering (keepalive)`, {
      hint: 'the host is down or the network path dropped',
      ...cause,
    });
  }
  if (/All configured authentication methods failed|Too many authentication failures/i.test(e.message)) {
    return authError(ctx, cause);
  }
  // sshd over MaxStartups drops new connections before or during key exchange.
  if (code === 'ECONNRESET' || code === 'EPIPE' || /Connection lost before handshake/.test(e.message)) {
    if (!ctx.ready)
      return new SshError('reset', ctx.alias, `connection to ${where} reset during the SSH handshake`, {
        hint: RESET_HINT,
        ...cause,
      });
    return new SshError('reset', ctx.alias, `connection to ${where} reset`, {
      hint: 'the host or the network dropped the SSH connection',
      ...cause,
    });
  }
  return new SshError('protocol', ctx.alias, `SSH error with ${where}: ${e.message}`, {
    hint: 'run `ssh -v` against the host to see what the server expects',
    ...cause,
  });
}

/**
 * No handshake: the host said nothing within connect_timeout ('silent', also a TCP connect
 * not answered), stopped answering for that long partway ('stalled'), or answered each step
 * but took HANDSHAKE_TOTAL_FACTOR times it in all ('total').
 */
export function timeoutError(ctx: ErrorContext, opts: { cause?: unknown; why?: DeadlineMiss } = {}): SshError {
  const { why = 'silent', ...rest } = opts;
  const secs = (ms: number): number => Math.round(ms / 100) / 10;
  const where = `${ctx.hostname}:${ctx.port}`;
  const message =
    why === 'silent'
      ? `no SSH handshake with ${where} within ${secs(ctx.timeoutMs)}s`
      : why === 'stalled'
        ? `no SSH handshake with ${where}: it stopped answering for ${secs(ctx.timeoutMs)}s partway`
        : `no SSH handshake with ${where} within ${secs(ctx.timeoutMs * HANDSHAKE_TOTAL_FACTOR)}s, though it kept answering`;
  return new SshError('timeout', ctx.alias, message, {
    hint:
      why === 'total'
        ? `the host answers slowly (a loaded host, a slow login): raise connect_timeout; a handshake may take ${HANDSHAKE_TOTAL_FACTOR} times it`
        : 'check that the host is up and a firewall does not drop packets, or raise connect_timeout',
    ...rest,
  });
}

/** The server closed the connection before the handshake ended, without saying why. */
export function closedEarlyError(ctx: ErrorContext): SshError {
  return new SshError(
    'reset',
    ctx.alias,
    `${ctx.hostname}:${ctx.port} closed the connection during the SSH handshake`,
    {
      hint: RESET_HINT,
    },
  );
}

export function authError(ctx: ErrorContext, opts: { cause?: unknown } = {}): SshError {
  const tried = ctx.triedMethods.length ? ctx.triedMethods.join(', ') : 'none';
  const notes = ctx.notes.length ? `; ${ctx.notes.join('; ')}` : '';
  return new SshError('auth', ctx.alias, `authentication failed (tried: ${tried})${notes}`, {
    hint: 'check username, identity_file and the ssh-agent (`ssh-add -l`); a password or passphrase can come from an environment variable',
    ...opts,
  });
}

export function closedError(alias: string): SshError {
  return new SshError('reset', alias, 'the SSH connection is closed', {
    hint: 'the host dropped or the connection was closed; reconnect',
  });
}
