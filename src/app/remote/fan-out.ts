// Bounded fan-out for SSH connection starts, shared by every command that connects to
// many hosts. Each start waits a small random delay before it queues for a slot, so the
// first wave of handshakes is spread out instead of arriving at once (sshd's
// MaxStartups, a jump host or a NAT drop the excess of a burst).
import pLimit from 'p-limit';

/** Spread of the first wave; small next to one SSH handshake on a LAN. */
export const DEFAULT_JITTER_MS = 20;

export interface FanOutOptions {
  /** Tasks running at once. */
  fanout: number;
  jitterMs?: number;
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export type Limiter = <T>(task: () => Promise<T>) => Promise<T>;

export function connectLimiter(o: FanOutOptions): Limiter {
  const limit = pLimit(Math.max(1, o.fanout));
  const jitter = Math.max(0, o.jitterMs ?? DEFAULT_JITTER_MS);
  const random = o.random ?? Math.random;
  const sleep = o.sleep ?? defaultSleep;
  return async (task) => {
    const delay = Math.floor(random() * jitter);
    if (delay > 0) await sleep(delay);
    return limit(task);
  };
}

function defaultSleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
