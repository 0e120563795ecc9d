// The two ways to the scheduler's HTTP server from this machine, opened once the
// cluster is up: the shared dashboard port for a browser (dashboard only, said so) and
// the owner's socket with the whole API. Either failing is a warning, not a failure.
import type { ClusterEvent } from '../../../events/types.js';
import { startApiSocket } from './api-socket.js';
import { startDashboardForward, type Connect } from './dashboard-forward.js';

export interface HttpForwards {
  /** The dashboard URL on this machine, when the port could be opened. */
  url?: string;
  close(): void;
}

/** ports: the local dashboard ports to try first, in order (else any free one). */
export async function startHttpForwards(o: {
  connect: Connect;
  ports: readonly number[];
  apiSocket?: string;
  say(e: ClusterEvent): void;
}): Promise<HttpForwards> {
  const closers: (() => void)[] = [];
  let url: string | undefined;
  const warn = (message: string) => o.say({ kind: 'notice', level: 'warning', message });
  try {
    const fwd = await startDashboardForward(o.connect, o.ports);
    closers.push(() => fwd.close());
    url = `http://127.0.0.1:${fwd.port}/status`;
    o.say({
      kind: 'notice',
      level: 'info',
      message: `The dashboard port ${fwd.port} on 127.0.0.1: every user of this machine can reach it, so it forwards the dashboard only (GET, not the scheduler's /api/).`,
    });
  } catch (err) {
    warn(`could not forward the dashboard to this machine: ${String(err)}`);
  }
  if (o.apiSocket) {
    try {
      const sock = await startApiSocket(o.connect, o.apiSocket);
      closers.push(() => sock.close());
      o.say({
        kind: 'notice',
        level: 'info',
        message: `The scheduler's HTTP API, for you only: curl --unix-socket ${sock.path} http://scheduler/api/v1/get_workers`,
      });
    } catch (err) {
      warn(
        `could not open the scheduler's HTTP API socket ${o.apiSocket}: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }
  return { url, close: () => closers.forEach((c) => c()) };
}
