// The scheduler's HTTP server (dashboard and API) listens on the scheduler host's
// loopback by default. While the controller runs, a local port forwards to it over SSH
// so the dashboard URL works in a browser on this machine, as `ssh -L` would; but every
// local user can reach that port, so it is a small HTTP proxy that forwards only what
// browser-rules.ts lets through (the dashboard, not the API), and refuses the rest
// with 403. Websockets (the live plots) are passed through after the same check.
import http from 'node:http';
import type net from 'node:net';
import type { Duplex } from 'node:stream';
import { browserRefusal, refusalBody } from './browser-rules.js';

export interface Forward {
  port: number;
  close(): void;
}

export type Connect = () => Promise<Duplex>;

const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade'];

/** Listens on the first of preferredPorts that is free, else on any port. */
export async function startDashboardForward(connect: Connect, preferredPorts: number | readonly number[]): Promise<Forward> {
  const open = new Set<Duplex>();
  const track = (s: Duplex) => {
    open.add(s);
    s.once('close', () => open.delete(s));
  };
  const server = http.createServer((req, res) => {
    const why = browserRefusal(req.method, req.url, req.headers.host);
    if (why) return void res.writeHead(403, { 'content-type': 'text/plain; charset=utf-8' }).end(refusalBody(why));
    forwardRequest(req, res, connect, track);
  });
  server.on('connection', track);
  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    track(socket);
    socket.on('error', () => socket.destroy());
    const why = browserRefusal(req.method, req.url, req.headers.host);
    if (why) return void socket.end(`HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n${refusalBody(why)}`);
    connect().then(
      (remote) => {
        track(remote);
        remote.on('error', () => socket.destroy());
        socket.on('close', () => remote.destroy());
        remote.write(rawHead(req));
        if (head.length) remote.write(head);
        socket.pipe(remote).pipe(socket);
      },
      () => socket.destroy(),
    );
  });
  let port: number | undefined;
  for (const want of [preferredPorts].flat()) if ((port ??= await listen(server, want).catch(() => undefined)) !== undefined) break;
  port ??= await listen(server, 0);
  return {
    port,
    close() {
      server.close();
      for (const s of open) s.destroy();
    },
  };
}

function forwardRequest(req: http.IncomingMessage, res: http.ServerResponse, connect: Connect, track: (s: Duplex) => void): void {
  const headers = { ...req.headers };
  for (const h of HOP_BY_HOP) delete headers[h];
  const upstream = http.request({
    method: req.method,
    path: req.url,
    headers: { ...headers, connection: 'close' },
    createConnection: (_opts, oncreate) => {
      connect().then(
        (remote) => (track(remote), oncreate(null, remote as net.Socket)),
        (err: unknown) => oncreate(err instanceof Error ? err : new Error(String(err)), undefined!),
      );
      return undefined;
    },
  });
  upstream.on('response', (r) => {
    const out = { ...r.headers };
    for (const h of HOP_BY_HOP) delete out[h];
    res.writeHead(r.statusCode ?? 502, out);
    r.pipe(res);
  });
  upstream.on('error', () => {
    if (res.headersSent) return void res.destroy();
    res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' }).end('sshcluster: the scheduler did not answer\n');
  });
  res.on('close', () => upstream.destroy());
  upstream.end();
}

/** The request line and headers as received, for a websocket upgrade passed through. */
function rawHead(req: http.IncomingMessage): string {
  const lines = [`${req.method} ${req.url} HTTP/1.1`];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
  return lines.join('\r\n') + '\r\n\r\n';
}

function listen(server: http.Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once('error', onError);
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => {
      server.off('error', onError);
      resolve((server.address() as net.AddressInfo).port);
    });
  });
}
