import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectContext } from '../../../src/ssh/connect.js';
import { HostConnection, type ExecHandle } from '../../../src/ssh/host-connection.js';
import { SshError } from '../../../src/ssh/ssh-error.js';
import { baseSpec, makeKey, memFs, startTestServer, type TestServer } from './test-server.js';

const userKey = makeKey();
const fs = memFs({ '/id/user': userKey.private });
const ctx: ConnectContext = {
  readFile: fs.readFile,
  appendFile: fs.appendFile,
  secrets: { get: () => Promise.reject(new Error('no secrets here')) },
};
const spec = (port: number) => baseSpec(port, { identityFiles: ['/id/user'] });
let server: TestServer;
let conn: HostConnection;

function text(stream: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve) => {
    let s = '';
    stream.on('data', (d: Buffer) => (s += d.toString()));
    stream.on('end', () => resolve(s));
  });
}

beforeAll(async () => {
  server = await startTestServer({ userKeys: [userKey] });
  conn = await HostConnection.open(spec(server.port), ctx);
});
afterAll(async () => {
  conn.close();
  await server.close();
});

describe('exec', () => {
  it('streams stdout and stderr and reports the exit code', async () => {
    const h = await conn.exec('echo out; echo err >&2; exit 3');
    h.closeStdin();
    const [out, err, exit] = await Promise.all([text(h.stdout), text(h.stderr), h.exit]);
    expect(out).toBe('out\n');
    expect(err).toBe('err\n');
    expect(exit).toEqual({ code: 3, signal: null });
    expect(conn.authMethod).toBe('publickey /id/user');
  });

  it('passes stdin and its EOF to the remote command', async () => {
    const before = server.stdinEnded;
    const h = await conn.exec('cat; echo done');
    h.stdin.write('hello\n');
    h.closeStdin();
    const [out, exit] = await Promise.all([text(h.stdout), h.exit]);
    expect(out).toBe('hello\ndone\n');
    expect(exit.code).toBe(0);
    expect(server.stdinEnded).toBe(before + 1);
  });

  it('run() collects bounded output', async () => {
    const r = await conn.run('head -c 5000 /dev/zero | tr "\\0" x; echo; echo e >&2', {
      timeoutMs: 5000,
      maxBytes: 100,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('x'.repeat(100));
    expect(r.stderr).toBe('e\n');
    expect(r.truncated).toBe(true);
  });

  it('run() times out', async () => {
    const err = await conn.run('sleep 5', { timeoutMs: 200 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SshError);
    expect((err as SshError).reason).toBe('timeout');
  });
});

describe('channel limits', () => {
  async function holdMany(c: HostConnection, n: number): Promise<ExecHandle[]> {
    return Promise.all(Array.from({ length: n }, () => c.exec('cat >/dev/null')));
  }
  async function release(handles: ExecHandle[]): Promise<void> {
    for (const h of handles) {
      h.stdout.resume();
      h.stderr.resume();
      h.closeStdin();
    }
    await Promise.all(handles.map((h) => h.exit));
  }

  it('opens a second connection beyond maxChannelsPerConnection', async () => {
    const s = await startTestServer({ userKeys: [userKey], maxSessions: 10 });
    const c = await HostConnection.open(spec(s.port), ctx);
    try {
      const handles = await holdMany(c, 12);
      expect(c.connectionCount).toBe(2);
      expect(s.connections).toBe(2);
      expect(s.refusedSessions).toBe(0);
      await release(handles);
      const again = await holdMany(c, 3);
      expect(s.connections).toBe(2); // slots were freed and reused
      await release(again);
    } finally {
      c.close();
      await s.close();
    }
  });

  it('retries on a new connection when the server refuses a channel', async () => {
    const s = await startTestServer({ userKeys: [userKey], maxSessions: 3 });
    const c = await HostConnection.open(spec(s.port), ctx);
    try {
      const first = await holdMany(c, 3);
      const more = await holdMany(c, 1);
      expect(s.refusedSessions).toBe(1);
      expect(c.connectionCount).toBe(2);
      await release([...first, ...more]);
    } finally {
      c.close();
      await s.close();
    }
  });
});

describe('forwardOut', () => {
  it('carries HTTP to a TCP server behind the SSH server', async () => {
    const web = http.createServer((req, res) => res.end(`hello ${req.url}`));
    await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
    const port = (web.address() as AddressInfo).port;
    try {
      const stream = await conn.forwardOut('127.0.0.1', port);
      const body = await new Promise<string>((resolve, reject) => {
        const req = http.request(
          { path: '/api/v1/adaptive_target', createConnection: () => stream as never },
          (res) => void text(res).then(resolve),
        );
        req.on('error', reject);
        req.end();
      });
      expect(body).toBe('hello /api/v1/adaptive_target');
    } finally {
      web.closeAllConnections();
      await new Promise((r) => web.close(r));
    }
  });

  it('fails as unreachable when nothing listens', async () => {
    const err = await conn.forwardOut('127.0.0.1', 1).catch((e: unknown) => e);
    expect((err as SshError).reason).toBe('unreachable');
  });
});

describe('onClose', () => {
  it('fires once with an error when the server drops the connection', async () => {
    const s = await startTestServer({ userKeys: [userKey] });
    const c = await HostConnection.open(spec(s.port), ctx);
    const calls: Array<SshError | undefined> = [];
    const closed = new Promise<void>((r) => c.onClose((err) => (calls.push(err), r())));
    await s.close();
    await closed;
    expect(calls).toHaveLength(1);
    expect(calls[0]).toBeInstanceOf(SshError);
    await expect(c.exec('true')).rejects.toBeInstanceOf(SshError);
  });

  it('fires without an error on close()', async () => {
    const c = await HostConnection.open(spec(server.port), ctx);
    const got = new Promise<SshError | undefined>((r) => c.onClose(r));
    c.close();
    expect(await got).toBeUndefined();
  });
});
