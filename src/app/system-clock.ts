// The real clock the core's ports take: Date.now and unref'd timers, so a pending
// wake-up never keeps the process alive.
import type { Clock } from '../cluster/ports.js';

export const systemClock: Clock = {
  now: () => Date.now(),
  after(ms, fn) {
    const t = setTimeout(fn, Math.max(0, ms));
    t.unref();
    return () => clearTimeout(t);
  },
};
