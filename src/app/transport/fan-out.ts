// Bounded fan-out for SSH connection starts, shared by every command that connects to
// many hosts. Past the first few, each start waits a small random delay before it
// queues for a slot, so a large first wave of handshakes is spread out instead of
// arriving at once (sshd's MaxStartups, a jump host or a NAT drop the excess of a
// burst). The first few go at once: a small cluster does not wait on the spread.
import pLimit from 'p-limit';

/** Spread of the first wave; small next to one SSH handshake on a LAN. */
export const DEFAULT_JITTER_MS = 20;
/**
 * Starts that go without a delay: fewer than sshd's MaxStartups (10 by default) even
 * if every one of them reaches the same sshd (a shared jump host).
 */
export const DEFAULT_BURST = 8;

export interface FanOutOptions {
  /** Tasks running at once. */
  fanout: number;
  jitterMs?: number;
  /** Starts before the jitter applies; DEFAULT_BURST unless given. */
  burst?: number;
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export type Limiter = <T>(task: () => Promise<T>) => Promise<T>;

export function connectLimiter(o: FanOutOptions): Limiter {
  const limit = pLimit(Math.max(1, o.fanout));
  const jitter = Math.max(0, o.jitterMs ?? DEFAULT_JITTER_MS);
  const random = o.random ?? Math.random;
  const sleep = o.sleep ?? defaultSleep;
  const burst = o.burst ?? DEFAULT_BURST;
  let starts = 0;
  return async (task) => {
    const delay = starts++ < burst ? 0 : Math.floor(random() * jitter);
    if (delay > 0) await sleep(delay);
    return limit(task);
  };
}

function defaultSleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
