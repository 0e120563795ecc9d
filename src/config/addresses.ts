// Addresses users see and the one we reach the scheduler's HTTP server by.
import type { ClusterSpec } from './spec.js';

/** `tls` when the cluster's processes talk TLS (see tls-setup.ts), else plain `tcp`. */
export function schedulerAddress(spec: ClusterSpec, scheme: 'tcp' | 'tls' = 'tcp'): string {
  const host = spec.schedulerOptions.host ?? spec.schedulerHost.connect.hostname;
  return `${scheme}://${bracket(host)}:${spec.schedulerOptions.port}`;
}

/** "host:port", ":port" or "port" as dask's --dashboard-address takes it. */
export function parseDashboardAddress(addr: string): { host: string; port: number } {
  const m = /^(?:(.*):)?(\d+)$/.exec(addr.trim());
  if (!m) return { host: '', port: 8787 };
  return { host: m[1] ?? '', port: Number(m[2]) };
}

export function dashboardUrl(spec: ClusterSpec): string {
  const { host, port } = parseDashboardAddress(spec.schedulerOptions.dashboardAddress);
  const shown = host && host !== '0.0.0.0' && host !== '::' ? host : spec.schedulerHost.connect.hostname;
  return `http://${bracket(shown)}:${port}/status`;
}

/** Where, seen from the scheduler host, its HTTP server listens. */
export function dashboardForward(spec: ClusterSpec): { host: string; port: number } {
  const { host, port } = parseDashboardAddress(spec.schedulerOptions.dashboardAddress);
  const local = host === '' || host === '0.0.0.0' || host === '::' || host === 'localhost';
  return { host: local ? '127.0.0.1' : host, port };
}

function bracket(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/** The local port of a dashboard URL a controller recorded (its forward on 127.0.0.1). */
export function recordedDashboardPort(url: string | undefined): number | undefined {
  if (url === undefined || !URL.canParse(url)) return undefined;
  const u = new URL(url);
  return u.hostname === '127.0.0.1' && u.port ? Number(u.port) : undefined;
}
