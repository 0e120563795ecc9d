// An in-process ssh2 server on 127.0.0.1 for fast SSH-layer tests. Commands run
// through `sh -c` on this machine. Not a replacement for the sshd e2e tests.
import { spawn } from 'node:child_process';
import net from 'node:net';
import { timingSafeEqual } from 'node:crypto';
import ssh2 from 'ssh2';
import type { Connection, ParsedKey } from 'ssh2';
import type { ConnectSpec } from '../../../src/config/spec.js';

export interface TestKey {
  private: string;
  public: string;
  blob: Buffer;
  parsed: ParsedKey;
}

export function makeKey(passphrase?: string, type: 'ed25519' | 'rsa' = 'ed25519'): TestKey {
  // ssh2 1.17's keygen drops a leading zero byte of ed25519 public keys (~1 in 250
  // keys), producing keys ssh2 itself cannot parse: draw again.
  for (;;) {
    const pair =
      type === 'rsa'
        ? ssh2.utils.generateKeyPairSync('rsa', { bits: 2048 })
        : passphrase
          ? ssh2.utils.generateKeyPairSync('ed25519', { passphrase, cipher: 'aes256-ctr', rounds: 4 })
          : ssh2.utils.generateKeyPairSync('ed25519');
    const parsed = ssh2.utils.parseKey(pair.public);
    if (parsed instanceof Error) continue;
    return { private: pair.private, public: pair.public, blob: parsed.getPublicSSH(), parsed };
  }
}

export interface TestServerOptions {
  hostKey?: TestKey;
  userKeys?: TestKey[];
  password?: string;
  /** Refuse session channels beyond this many per connection (like sshd MaxSessions). */
  maxSessions?: number;
}

export interface TestServer {
  port: number;
  hostKey: TestKey;
  connections: number;
  authMethods: string[];
  /** Each publickey request: 'query' (unsigned: would this key do?) or 'signed'. */
  publickeyRequests: ('query' | 'signed')[];
  stdinEnded: number;
  refusedSessions: number;
  /** Connections not yet closed. */
  open: number;
  close(): Promise<void>;
}

export async function startTestServer(opts: TestServerOptions = {}): Promise<TestServer> {
  const hostKey = opts.hostKey ?? makeKey();
  const state = {
    connections: 0,
    authMethods: [] as string[],
    publickeyRequests: [] as ('query' | 'signed')[],
    stdinEnded: 0,
    refusedSessions: 0,
  };
  const clients = new Set<Connection>();
  const server = new ssh2.Server({ hostKeys: [hostKey.private] }, (client) => {
    state.connections += 1;
    clients.add(client);
    client.on('close', () => clients.delete(client));
    client.on('error', () => {});
    client.on('authentication', (ctx) => {
      state.authMethods.push(ctx.method);
      if (ctx.method === 'password' && opts.password !== undefined && safeEq(ctx.password, opts.password)) {
        return ctx.accept();
      }
      if (ctx.method === 'publickey') {
        state.publickeyRequests.push(ctx.signature ? 'signed' : 'query');
        const key = opts.userKeys?.find((k) => k.blob.equals(ctx.key.data));
        if (key && !ctx.signature) return ctx.accept();
        if (key && ctx.signature && ctx.blob && key.parsed.verify(ctx.blob, ctx.signature, ctx.hashAlgo) === true) {
          return ctx.accept();
        }
      }
      ctx.reject(['publickey', 'password']);
    });
    client.on('ready', () => serveClient(client, opts, state));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    hostKey,
    get connections() {
      return state.connections;
    },
    get authMethods() {
      return state.authMethods;
    },
    get publickeyRequests() {
      return state.publickeyRequests;
    },
    get stdinEnded() {
      return state.stdinEnded;
    },
    get refusedSessions() {
      return state.refusedSessions;
    },
    get open() {
      return clients.size;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of clients) c.end();
        server.close(() => resolve());
      }),
  };
}

function serveClient(
  client: Connection,
  opts: TestServerOptions,
  state: { stdinEnded: number; refusedSessions: number },
): void {
  let sessions = 0;
  client.on('session', (accept, reject) => {
    if (opts.maxSessions !== undefined && sessions >= opts.maxSessions) {
      state.refusedSessions += 1;
      return reject();
    }
    sessions += 1;
    const session = accept();
    session.on('close', () => (sessions -= 1));
    session.on('exec', (acceptExec, _rejectExec, info) => {
      const stream = acceptExec();
      const child = spawn('sh', ['-c', info.command], { stdio: 'pipe' });
      stream.on('end', () => (state.stdinEnded += 1));
      stream.pipe(child.stdin);
      child.stdout.pipe(stream, { end: false });
      child.stderr.pipe(stream.stderr, { end: false });
      child.on('close', (code) => {
        stream.exit(code ?? 255);
        stream.end();
      });
      // As sshd: a channel gone closes the command's pipes (a writer then gets SIGPIPE).
      stream.on('close', () => {
        child.kill();
        child.stdout.destroy();
        child.stderr.destroy();
      });
    });
  });
  client.on('tcpip', (accept, reject, info) => {
    const sock = net.connect(info.destPort, info.destIP);
    sock.once('error', () => reject());
    sock.once('connect', () => {
      const stream = accept();
      stream.pipe(sock).pipe(stream);
      stream.on('close', () => sock.destroy());
    });
  });
}

function safeEq(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function baseSpec(port: number, over: Partial<ConnectSpec> = {}): ConnectSpec {
  return {
    alias: 'node1',
    hostname: '127.0.0.1',
    port,
    username: 'tester',
    identityFiles: [],
    knownHosts: '/kh/known_hosts',
    strictHostKeyChecking: 'no',
    proxyJump: [],
    connectTimeoutMs: 3000,
    ...over,
  };
}

/** An in-memory file system for ConnectContext. */
export function memFs(files: Record<string, string> = {}) {
  return {
    files,
    readFile(path: string): string {
      const f = files[path];
      if (f === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
      return f;
    },
    appendFile(path: string, text: string): void {
      files[path] = (files[path] ?? '') + text;
    },
  };
}
