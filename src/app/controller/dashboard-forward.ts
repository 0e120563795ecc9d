// The scheduler's HTTP server (dashboard and API, whose retire endpoint has no
// authentication) listens on the scheduler host's loopback by default. While the
// controller runs, this forwards a local port to it over SSH so the dashboard URL works
// from this machine, as `ssh -L` would.
import net from 'node:net';
import type { Duplex } from 'node:stream';

export interface Forward {
  port: number;
  close(): void;
}

export async function startDashboardForward(connect: () => Promise<Duplex>, preferredPort: number): Promise<Forward> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((local) => {
    sockets.add(local);
    local.on('close', () => sockets.delete(local));
    local.on('error', () => local.destroy());
    connect().then(
      (remote) => {
        remote.on('error', () => local.destroy());
        local.pipe(remote).pipe(local);
        local.on('close', () => remote.destroy());
      },
      () => local.destroy(),
    );
  });
  const port = await listen(server, preferredPort).catch(() => listen(server, 0));
  return {
    port,
    close() {
      server.close();
      for (const s of sockets) s.destroy();
    },
  };
}

function listen(server: net.Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once('error', onError);
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => {
      server.off('error', onError);
      resolve((server.address() as net.AddressInfo).port);
    });
  });
}
