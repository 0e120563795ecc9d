// The scheduler's HTTP server (dashboard and API) listens on the scheduler host's
// loopback by default. While the controller runs, a local port forwards to it over SSH
// so the dashboard URL works in a browser on this machine, as `ssh -L` would; but every
// local user can reach that port, so it is a small HTTP proxy that forwards only what
// browser-rules.ts lets through (the dashboard, not the API), and refuses the rest
// with 403. Websockets (the live plots) are passed through after the same check, once
// the scheduler has switched protocols (forwardUpgrade).
import http from 'node:http';
import type net from 'node:net';
import type { Duplex } from 'node:stream';
import { browserRefusal, refusalBody } from './browser-rules.js';
import { capConnections, closeWhenIdle, DEFAULT_LIMITS, type ListenerLimits } from './listener-limits.js';

export interface Forward {
  port: number;
  close(): void;
}

export type Connect = () => Promise<Duplex>;

const HOP_BY_HOP = [
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
];

/** Listens on the first of preferredPorts that is free, else on any port. */
export async function startDashboardForward(
  connect: Connect,
  preferredPorts: number | readonly number[],
  limits: ListenerLimits = DEFAULT_LIMITS,
): Promise<Forward> {
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
  capConnections(server, limits);
  server.headersTimeout = 10_000;
  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    track(socket);
    socket.on('error', () => socket.destroy());
    const why = browserRefusal(req.method, req.url, req.headers.host) ?? websocketRefusal(req);
    if (why)
      return void socket.end(
        `HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n${refusalBody(why)}`,
      );
    forwardUpgrade(req, socket, head, connect, track);
    closeWhenIdle(socket as net.Socket, limits.idleMs);
  });
  let port: number | undefined;
  for (const want of [preferredPorts].flat())
    if ((port ??= await listen(server, want).catch(() => undefined)) !== undefined) break;
  port ??= await listen(server, 0);
  return {
    port,
    close() {
      server.close();
      for (const s of open) s.destroy();
    },
  };
}

function forwardRequest(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  connect: Connect,
  track: (s: Duplex) => void,
): void {
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
    res
      .writeHead(502, { 'content-type': 'text/plain; charset=utf-8' })
      .end('sshcluster: the scheduler did not answer\n');
  });
  res.on('close', () => upstream.destroy());
  upstream.end();
}

/** Why an upgrade is not a websocket handshake a browser makes, or undefined. */
function websocketRefusal(req: http.IncomingMessage): string | undefined {
  const upgrade = String(req.headers.upgrade ?? '').toLowerCase();
  return upgrade === 'websocket' && req.headers['sec-websocket-key']
    ? undefined
    : 'only a websocket handshake is upgraded on this port';
}

/**
 * A websocket handshake, to the scheduler. Only its `101 Switching Protocols` makes the
 * connection a raw pipe: until then what the client sent past the handshake (`head`, and
 * the socket, paused) waits, and any other answer is relayed as the one answer on a
 * connection closed after it, so no request rides behind a refused upgrade unchecked.
 */
function forwardUpgrade(
  req: http.IncomingMessage,
  socket: Duplex,
  head: Buffer,
  connect: Connect,
  track: (s: Duplex) => void,
): void {
  socket.pause();
  const upstream = http.request({
    method: req.method,
    path: req.url,
    headers: req.rawHeaders, // as the client spelled them, Sec-WebSocket-* included
    createConnection: (_opts, oncreate) => {
      connect().then(
        (remote) => (track(remote), oncreate(null, remote as net.Socket)),
        (err: unknown) => oncreate(err instanceof Error ? err : new Error(String(err)), undefined!),
      );
      return undefined;
    },
  });
  upstream.on('upgrade', (res, remote: Duplex, remoteHead: Buffer) => {
    track(remote);
    remote.on('error', () => socket.destroy());
    socket.on('close', () => remote.destroy());
    remote.on('close', () => socket.destroy());
    socket.write(responseHead(res, res.rawHeaders));
    if (remoteHead.length) socket.write(remoteHead);
    if (head.length) remote.write(head);
    socket.pipe(remote).pipe(socket);
    socket.resume();
  });
  upstream.on('response', (res) => {
    const kept: string[] = [];
    for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
      if (
        !HOP_BY_HOP.includes(res.rawHeaders[i]!.toLowerCase()) &&
        res.rawHeaders[i]!.toLowerCase() !== 'content-length'
      )
        kept.push(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
    }
    socket.write(responseHead(res, [...kept, 'Connection', 'close']));
    res.on('data', (d: Buffer) => socket.write(d));
    res.on('end', () => (socket.end(), upstream.destroy()));
    res.on('error', () => socket.destroy());
  });
  upstream.on('error', () => socket.destroy());
  socket.on('close', () => upstream.destroy());
  upstream.end();
}

/** A response's status line and `raw` headers (name, value, …), as sent to the client. */
function responseHead(res: http.IncomingMessage, raw: string[]): string {
  const lines = [`HTTP/1.1 ${res.statusCode ?? 502} ${res.statusMessage ?? ''}`];
  for (let i = 0; i + 1 < raw.length; i += 2) lines.push(`${raw[i]}: ${raw[i + 1]}`);
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
