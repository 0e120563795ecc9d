// A local cluster shares this machine with whatever else runs on it: when Dask's usual
// ports are taken, take free ones rather than let workers join someone else's scheduler.
import net from 'node:net';
import type { ClusterSpec } from '../../config/spec.js';
import { parseDashboardAddress } from '../../config/addresses.js';

function bindable(port: number, host: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(undefined));
    srv.listen({ port, host, exclusive: true }, () => {
      const got = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(got));
    });
  });
}

async function freePort(preferred: number, host: string): Promise<number> {
  return (await bindable(preferred, host)) ?? (await bindable(0, host)) ?? preferred;
}

export async function withFreeLocalPorts(spec: ClusterSpec): Promise<ClusterSpec> {
  const host = spec.schedulerOptions.host ?? '127.0.0.1';
  const dash = parseDashboardAddress(spec.schedulerOptions.dashboardAddress);
  const port = await freePort(spec.schedulerOptions.port, host);
  const dashPort = await freePort(dash.port, dash.host || host);
  return {
    ...spec,
    schedulerOptions: { ...spec.schedulerOptions, port, dashboardAddress: `${dash.host}:${dashPort}` },
  };
}

/** The ports a dead controller's local cluster had: its scheduler may still be on them. */
export function withLocalPortsOf(spec: ClusterSpec, previous: Pick<ClusterSpec, 'schedulerOptions'>): ClusterSpec {
  const { port, dashboardAddress } = previous.schedulerOptions;
  return { ...spec, schedulerOptions: { ...spec.schedulerOptions, port, dashboardAddress } };
}
