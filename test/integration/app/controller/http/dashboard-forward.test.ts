// The shared dashboard port as a proxy in front of a stand-in scheduler HTTP server:
// what acts is refused before anything reaches the scheduler; pages, HEAD and the
// websocket pass (issue 12, finding 3).
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startDashboardForward, type Forward } from '../../../../../src/app/controller/http/dashboard-forward.js';

let scheduler: http.Server | undefined;
let fwd: Forward | undefined;
afterEach(() => {
  fwd?.close();
  scheduler?.close();
  scheduler?.closeAllConnections();
});

async function setUp() {
  const seen: string[] = [];
  scheduler = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'text/html', 'x-dask': 'yes' }).end('<html>dashboard</html>');
  });
  scheduler.on('upgrade', (req, socket: net.Socket) => {
    seen.push(`UPGRADE ${req.url}`);
    socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n');
    socket.on('data', (d: Buffer) => socket.write(d)); // echo
  });
  await new Promise<void>((r) => scheduler!.listen(0, '127.0.0.1', r));
  const port = (scheduler.address() as AddressInfo).port;
  let connects = 0;
  const connect = async () => (connects++, net.connect({ host: '127.0.0.1', port }));
  fwd = await startDashboardForward(connect, 0);
  return { seen, connects: () => connects, port: fwd.port };
}

function send(port: number, method: string, path: string, body?: string) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('the shared dashboard port', () => {
  it('refuses POST /api/v1/retire_workers without reaching the scheduler, and says why', async () => {
    const s = await setUp();
    const r = await send(s.port, 'POST', '/api/v1/retire_workers', '{"workers":["tcp://10.0.0.2:1234"]}');
    expect(r.status).toBe(403);
    expect(r.body).toMatch(/POST is not forwarded on this port[\s\S]*every user of this machine/);
    expect((await send(s.port, 'GET', '/api/v1/get_workers')).status).toBe(403);
    expect(s.seen).toEqual([]);
    expect(s.connects()).toBe(0);
  });

  it("forwards the dashboard pages and HEAD, with the scheduler's headers", async () => {
    const s = await setUp();
    const page = await send(s.port, 'GET', '/status?x=1');
    expect(page).toMatchObject({ status: 200, body: '<html>dashboard</html>' });
    expect(page.headers['x-dask']).toBe('yes');
    expect((await send(s.port, 'HEAD', '/status')).status).toBe(200);
    expect(s.seen).toEqual(['GET /status?x=1', 'HEAD /status']);
  });

  it('passes a websocket through after the same check', async () => {
    const s = await setUp();
    const echoed = await new Promise<string>((resolve, reject) => {
      const c = net.connect({ host: '127.0.0.1', port: s.port }, () => {
        c.write(
          `GET /status/ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n${WS_KEY}\r\n`,
        );
      });
      let got = '';
      c.on('data', (d: Buffer) => {
        got += d.toString();
        if (got.includes('\r\n\r\n') && !got.includes('ping')) c.write('ping');
        if (got.endsWith('ping')) (c.destroy(), resolve(got));
      });
      c.on('error', reject);
    });
    expect(echoed).toMatch(/^HTTP\/1\.1 101[\s\S]*ping$/);
    expect(s.seen).toEqual(['UPGRADE /status/ws']);
    const refused = await new Promise<string>((resolve) => {
      const c = net.connect({ host: '127.0.0.1', port: s.port }, () =>
        c.write('GET /api/v1/ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n'),
      );
      let got = '';
      c.on('data', (d: Buffer) => (got += d.toString()));
      c.on('close', () => resolve(got));
    });
    expect(refused).toMatch(/^HTTP\/1\.1 403/);
    expect(s.seen).toEqual(['UPGRADE /status/ws']);
  });

  it('pipes nothing behind an upgrade the scheduler did not switch (101): a pipelined POST /api/ never reaches it', async () => {
    // Like Dask's tornado: an Upgrade header on a plain page gets 200 on a connection kept
    // open for the next request. Everything the scheduler is sent is recorded.
    let received = '';
    const upstream = net.createServer((c) => {
      c.on('data', (d: Buffer) => {
        const first = !received;
        received += d.toString();
        if (first)
          c.write(
            'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 4\r\nConnection: keep-alive\r\n\r\npage',
          );
      });
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    const port = (upstream.address() as AddressInfo).port;
    fwd = await startDashboardForward(async () => net.connect({ host: '127.0.0.1', port }), 0);
    const retire = 'POST /api/v1/retire_workers HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{}';
    const plain = 'GET /status HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n';
    try {
      // A websocket handshake the scheduler answers 200: that answer, then the end.
      const answered = await exchange(fwd.port, `${plain}${WS_KEY}\r\n${retire}`);
      expect(answered).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*Connection: close\r\n\r\npage$/);
      expect(answered).not.toMatch(/keep-alive/i);
      // No Sec-WebSocket-Key: not a handshake a browser makes, refused here.
      expect(await exchange(fwd.port, `${plain}\r\n${retire}`)).toMatch(
        /^HTTP\/1\.1 403[\s\S]*only a websocket handshake is upgraded on this port/,
      );
      expect(received).toContain('GET /status');
      expect(received).not.toContain('retire_workers');
    } finally {
      upstream.close();
    }
  });
});

const WS_KEY = 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n';

/** Writes `text` to the port at once and resolves with all it got back once the port closes the connection. */
function exchange(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const c = net.connect({ host: '127.0.0.1', port }, () => c.write(text));
    let got = '';
    c.on('data', (d: Buffer) => (got += d.toString()));
    c.on('close', () => resolve(got));
    c.on('error', reject);
  });
}
