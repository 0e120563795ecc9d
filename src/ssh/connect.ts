// Open one authenticated ssh2 Client to a ConnectSpec, through its ProxyJump hops.
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { ssh2 } from './ssh2.js';
import type { Client } from 'ssh2';
import type { ConnectSpec } from '../config/spec.js';
import { makeAuthHandler, signFirstRequest, type AuthState, type SecretProvider } from './auth.js';
import { hostKeyAlgorithms, makeHostVerifier, type HostKeyOutcome } from './host-key.js';
import { HandshakeDeadline } from './handshake-deadline.js';
import { closedEarlyError, SshError, timeoutError, toSshError, type ErrorContext } from './ssh-error.js';

export type { SecretProvider } from './auth.js';

export interface ConnectContext {
  /** Throws when the file is missing. */
  readFile(path: string): Buffer | string;
  appendFile(path: string, text: string): void | Promise<void>;
  secrets: SecretProvider;
}

export interface OpenedClient {
  client: Client;
  /** The method that succeeded: "agent", "publickey /path/to/key" or "password". */
  authMethod: string;
  /** Why candidate methods were skipped, known_hosts not writable, … (no secrets). */
  notes: string[];
}

const KEEPALIVE_INTERVAL_MS = 5_000;
const KEEPALIVE_COUNT_MAX = 3;

/** Connect through spec.proxyJump (outermost first); ending the client ends its hops. */
export async function openClient(spec: ConnectSpec, ctx: ConnectContext): Promise<OpenedClient> {
  const hops: OpenedClient[] = [];
  const endHops = (): void => hops.forEach((h) => h.client.end());
  try {
    let sock: Duplex | undefined;
    for (const hop of spec.proxyJump) {
      const opened = await connectOne(hop, ctx, sock).catch((err: unknown) => {
        throw viaJumpHost(spec, hop, err);
      });
      hops.push(opened);
      sock = await tunnel(opened.client, hop, spec.proxyJump[hops.length] ?? spec);
    }
    const final = await connectOne({ ...spec, proxyJump: [] }, ctx, sock);
    final.client.once('close', endHops);
    return { ...final, notes: [...hops.flatMap((h) => h.notes), ...final.notes] };
  } catch (err) {
    endHops();
    throw err;
  }
}

function viaJumpHost(target: ConnectSpec, hop: ConnectSpec, err: unknown): SshError {
  const e = err instanceof SshError ? err : toSshError(err, errorContext(hop, false));
  return new SshError(e.reason, target.alias, `via jump host ${e.message}`, { hint: e.hint, cause: e });
}

function tunnel(hopClient: Client, hop: ConnectSpec, next: ConnectSpec): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(
        new SshError(
          'timeout',
          next.alias,
          `jump host ${hop.alias} did not open a tunnel to ${next.hostname}:${next.port}`,
        ),
      );
    }, next.connectTimeoutMs);
    hopClient.forwardOut('127.0.0.1', 0, next.hostname, next.port, (err, stream) => {
      clearTimeout(timer);
      if (!err) return resolve(stream);
      const msg = `jump host ${hop.alias} cannot reach ${next.hostname}:${next.port} (${err.message})`;
      reject(
        new SshError('unreachable', next.alias, msg, {
          hint: 'check the host name as the jump host resolves it',
          cause: err,
        }),
      );
    });
  });
}

function errorContext(spec: ConnectSpec, ready: boolean, auth?: AuthState): ErrorContext {
  return {
    alias: spec.alias,
    hostname: spec.hostname,
    port: spec.port,
    ready,
    timeoutMs: spec.connectTimeoutMs,
    triedMethods: auth?.tried ?? [],
    notes: auth?.notes ?? [],
  };
}

export function tcpConnect(spec: ConnectSpec): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    // Nagle off: the handshake is a run of small messages, several sent back to back
    // (KEXINIT then KEX_ECDH_INIT, NEWKEYS then SERVICE_REQUEST, …); with Nagle each
    // second one waits for the server's delayed ACK, 40 ms on Linux, three times.
    const sock = net.connect({ host: spec.hostname, port: spec.port, noDelay: true });
    const fail = (err: unknown): void => {
      deadline.stop();
      sock.destroy();
      reject(toSshError(err, errorContext(spec, false)));
    };
    // As the handshake's: a connect done while a busy loop had not read it yet is not late.
    const deadline = new HandshakeDeadline(spec.connectTimeoutMs, () => fail(timeoutError(errorContext(spec, false))));
    sock.once('error', fail);
    sock.once('connect', () => {
      deadline.stop();
      sock.removeListener('error', fail);
      resolve(sock);
    });
  });
}

function readKnownHosts(ctx: ConnectContext, path: string): string {
  try {
    const data = ctx.readFile(path);
    return typeof data === 'string' ? data : data.toString('utf8');
  } catch {
    return '';
  }
}

async function connectOne(spec: ConnectSpec, ctx: ConnectContext, sock?: Duplex): Promise<OpenedClient> {
  const socket = sock ?? (await tcpConnect(spec));
  const knownHosts = readKnownHosts(ctx, spec.knownHosts);
  const client = new (ssh2().Client)();
  const auth: AuthState = { tried: [], notes: [] };
  const hostKey: HostKeyOutcome = { notes: [] };
  return new Promise<OpenedClient>((resolve, reject) => {
    let settled = false;
    const deadline = new HandshakeDeadline(spec.connectTimeoutMs, (why) =>
      finish(timeoutError(errorContext(spec, false), { why })),
    );
    const heard = (): void => deadline.heardFrom();
    socket.on('data', heard);
    const hold = async <T>(p: Promise<T>): Promise<T> => {
      deadline.hold();
      try {
        return await p;
      } finally {
        deadline.release();
      }
    };
    const finish = (err?: unknown): void => {
      if (settled) return;
      settled = true;
      deadline.stop();
      socket.removeListener('data', heard);
      if (err === undefined) {
        const notes = [...hostKey.notes, ...auth.notes];
        return resolve({ client, authMethod: auth.current ?? 'none', notes });
      }
      client.destroy();
      socket.destroy();
      reject(hostKey.failure ?? toSshError(err, errorContext(spec, false, auth)));
    };
    // ssh2 reports an unusable agent as an 'error' and goes on with the next method.
    client.on('error', (err: Error & { level?: string }) => {
      if (err.level === 'agent') auth.notes.push(`agent: ${err.message}`);
      else finish(err);
    });
    client.once('ready', () => finish());
    client.once('close', () => {
      finish(hostKey.failure ?? closedEarlyError(errorContext(spec, false)));
    });
    client.connect({
      sock: socket,
      username: spec.username,
      readyTimeout: 0,
      keepaliveInterval: KEEPALIVE_INTERVAL_MS,
      keepaliveCountMax: KEEPALIVE_COUNT_MAX,
      algorithms: hostKeyAlgorithms(spec, knownHosts),
      hostVerifier: makeHostVerifier(spec, knownHosts, ctx, hostKey, hold),
      authHandler: makeAuthHandler(spec, ctx, auth, hold),
    });
    signFirstRequest(client);
  });
}
