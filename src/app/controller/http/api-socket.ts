// The scheduler's whole HTTP server (API included) for the owner only: a unix socket in
// the cluster's 0700 state dir (0600 itself), forwarded over SSH to the scheduler
// host's loopback. `curl --unix-socket …/http.sock http://scheduler/api/v1/get_workers`.
import fs from 'node:fs/promises';
import net from 'node:net';
import { listenOnce, removeStaleSocket } from '../../../control/socket-file.js';
import type { Connect } from './dashboard-forward.js';
import { capConnections, closeWhenIdle, DEFAULT_LIMITS, type ListenerLimits } from './listener-limits.js';

export interface SocketForward {
  path: string;
  close(): void;
}

export async function startApiSocket(
  connect: Connect,
  socketPath: string,
  limits: ListenerLimits = DEFAULT_LIMITS,
): Promise<SocketForward> {
  await removeStaleSocket(socketPath);
  const open = new Set<net.Socket>();
  const server = net.createServer((local) => {
    open.add(local);
    local.on('close', () => open.delete(local));
    local.on('error', () => local.destroy());
    closeWhenIdle(local, limits.idleMs);
    connect().then(
      (remote) => {
        remote.on('error', () => local.destroy());
        local.on('close', () => remote.destroy());
        local.pipe(remote).pipe(local);
      },
      () => local.destroy(),
    );
  });
  capConnections(server, limits);
  await listenOnce(server, socketPath);
  await fs.chmod(socketPath, 0o600);
  return {
    path: socketPath,
    close() {
      server.close();
      for (const s of open) s.destroy();
    },
  };
}
