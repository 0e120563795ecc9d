// Issue 33 #4: the listeners anyone on this machine can reach (the dashboard port, the
// metrics endpoint) hold at most a set number of connections: past it a new one is
// closed unanswered, the held ones keep working, and one is accepted again once one
// goes; a tunnel nothing passes through is closed. Meanwhile the control socket answers.
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startDashboardForward } from '../../../../../src/app/controller/http/dashboard-forward.js';
import { serveMetrics } from '../../../../../src/app/controller/metrics-server.js';
import { startControlServer } from '../../../../../src/control/server.js';
import { connectControl } from '../../../../../src/control/client.js';
import { method } from '../../../../../src/control/methods.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const HANDSHAKE =
  'GET /status/ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n';

/** A stand-in scheduler: switches every websocket handshake, then echoes; counts its open connections. */
async function websocketEcho(): Promise<{ port: number; open: () => number }> {
  const sockets = new Set<net.Socket>();
  const server = http.createServer((_req, res) => res.end('page'));
  server.on('connection', (s: net.Socket) => (sockets.add(s), s.on('close', () => sockets.delete(s))));
  server.on('upgrade', (_req, socket: net.Socket) => {
    socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n');
    socket.on('data', (d: Buffer) => socket.write(d));
    socket.on('end', () => socket.end()); // as a websocket server does at EOF
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => (server.close(), server.closeAllConnections()));
  return { port: (server.address() as AddressInfo).port, open: () => sockets.size };
}

/** A connection that sent `text`: its first bytes back (or '' and closed), and the socket. */
function open(port: number, text: string): Promise<{ socket: net.Socket; got: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => socket.write(text));
    cleanups.push(() => socket.destroy());
    socket.once('data', (d: Buffer) => resolve({ socket, got: d.toString(), closed: false }));
    socket.once('close', () => resolve({ socket, got: '', closed: true }));
    socket.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' ? undefined : reject(err)));
  });
}

function echo(socket: net.Socket, text: string): Promise<string> {
  return new Promise((resolve) => {
    socket.once('data', (d: Buffer) => resolve(d.toString()));
    socket.write(text);
  });
}

describe('the listeners past their cap', () => {
  it('the dashboard port refuses a new connection while its tunnels are held, and takes one again once one goes', async () => {
    const up = await websocketEcho();
    const fwd = await startDashboardForward(async () => net.connect({ host: '127.0.0.1', port: up.port }), 0, {
      maxConnections: 3,
      idleMs: 600_000,
    });
    cleanups.push(() => fwd.close());
    const held = await Promise.all([0, 1, 2].map(() => open(fwd.port, HANDSHAKE)));
    for (const h of held) expect(h.got).toMatch(/^HTTP\/1\.1 101/);
    const refused = await open(fwd.port, 'GET /status HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    expect(refused).toMatchObject({ got: '', closed: true });
    expect(await echo(held[0]!.socket, 'still here')).toBe('still here');
    held[2]!.socket.destroy();
    // Accepted again once the forward has seen that close (no timing: retried until it is).
    let again = await open(fwd.port, HANDSHAKE);
    while (again.closed) again = await open(fwd.port, HANDSHAKE);
    expect(again.got).toMatch(/^HTTP\/1\.1 101/);
  });

  it('closes a tunnel nothing passed through for the idle time, and its scheduler connection with it', async () => {
    const up = await websocketEcho();
    const fwd = await startDashboardForward(async () => net.connect({ host: '127.0.0.1', port: up.port }), 0, {
      maxConnections: 10,
      idleMs: 200,
    });
    cleanups.push(() => fwd.close());
    const t = await open(fwd.port, HANDSHAKE);
    expect(t.got).toMatch(/^HTTP\/1\.1 101/);
    await new Promise((r) => t.socket.once('close', r));
    expect(t.socket.destroyed).toBe(true);
    while (up.open() > 0) await new Promise((r) => setTimeout(r, 20));
    expect(up.open()).toBe(0);
  });

  it('the metrics endpoint refuses past its cap while the control socket still answers status', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sshc-limits-'));
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const metrics = await serveMetrics({ host: '127.0.0.1', port: 0 }, () => undefined, {
      maxConnections: 2,
      idleMs: 600_000,
    });
    cleanups.push(() => metrics.close());
    const port = metrics.port;
    const silent = await Promise.all(
      [0, 1].map(
        () =>
          new Promise<net.Socket>((r) => {
            const s = net.connect({ host: '127.0.0.1', port }, () => r(s));
            cleanups.push(() => s.destroy());
          }),
      ),
    );
    expect(silent).toHaveLength(2);
    // The third gets nothing: closed at once (the two held ones said nothing yet).
    expect(await open(port, 'GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')).toMatchObject({
      got: '',
      closed: true,
    });
    const sock = path.join(dir, 'control.sock');
    const table = { status: method<undefined, { ok: string }>(() => undefined) };
    const control = await startControlServer(sock, table, { status: async () => ({ ok: 'answered' }) });
    cleanups.push(() => control.close());
    const client = await connectControl<typeof table>(sock, { timeoutMs: 5000 });
    cleanups.push(() => client.close());
    expect(await client.call('status')).toEqual({ ok: 'answered' });
  });
});
