// Limits of the controller's listeners that anyone on this machine (the dashboard port,
// `--metrics`) or the owner's tools (the API socket) can connect to: each connection
// costs file descriptors here, and a forwarded one an SSH channel and a connection on the
// scheduler's host. Past the cap a new connection is closed at once (refused), so
// thousands of them cannot take the descriptors the control socket, the logs and SSH need;
// a tunnel nothing passed through for TUNNEL_IDLE_MS is closed.
import type net from 'node:net';

/** Concurrent connections per listener: far above a few browser tabs and a scraper. */
export const MAX_CONNECTIONS = 256;

/** A forwarded connection with no byte either way for this long is closed. */
export const TUNNEL_IDLE_MS = 10 * 60_000;

export interface ListenerLimits {
  maxConnections: number;
  idleMs: number;
}

export const DEFAULT_LIMITS: ListenerLimits = { maxConnections: MAX_CONNECTIONS, idleMs: TUNNEL_IDLE_MS };

/** Caps the server's concurrent connections (Node closes each one past the cap). */
export function capConnections(server: net.Server, limits: ListenerLimits): void {
  server.maxConnections = limits.maxConnections;
}

/** Closes `socket` (its 'close' takes the other end with it) once idle for `ms`. */
export function closeWhenIdle(
  socket: { setTimeout(ms: number, cb: () => void): unknown; destroy(): void },
  ms: number,
): void {
  socket.setTimeout(ms, () => socket.destroy());
}
