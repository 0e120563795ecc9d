// `up --metrics [HOST]:PORT`: GET /metrics in Prometheus's text format (metrics-text.ts).
// Bound before anything starts, so a taken port fails `up` with nothing half-started.
// Loopback unless a HOST is given: what it says (host and worker names) is for the
// machine's own scraper unless the user opens it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ExpectedError } from '../../errors.js';
import type { StatusJson } from '../../control/status-document.js';
import { metricsText } from './metrics-text.js';
import { capConnections, DEFAULT_LIMITS, type ListenerLimits } from './http/listener-limits.js';

export interface MetricsAddress {
  host: string;
  port: number;
}

export interface MetricsServer {
  /** The port it listens on (the one asked for, or the system's pick for 0). */
  port: number;
  close(): Promise<void>;
}

/** `status`: undefined until the cluster exists (then 503). */
export async function serveMetrics(
  at: MetricsAddress,
  status: () => StatusJson | undefined,
  limits: ListenerLimits = DEFAULT_LIMITS,
): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('sshcluster serves GET /metrics only\n');
      return;
    }
    const st = status();
    if (!st) res.writeHead(503, { 'Content-Type': 'text/plain' }).end('starting\n');
    else res.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8' }).end(metricsText(st));
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 10_000;
  // A scraper's kept-alive connection that says nothing is closed (Node's default: never).
  server.timeout = 30_000;
  capConnections(server, limits);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        new ExpectedError(
          `--metrics ${at.host}:${at.port}: ${err.code === 'EADDRINUSE' ? 'the port is in use' : err.message}`,
          { hint: `choose another port, e.g. --metrics :${at.port === 9464 ? 9465 : 9464}` },
        ),
      ),
    );
    server.listen(at.port, at.host, () => resolve());
  });
  // Never what keeps the process alive: the cluster is, and when `up` fails early it ends.
  server.unref();
  const port = (server.address() as AddressInfo).port;
  return { port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
