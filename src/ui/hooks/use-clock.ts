// The time frames are drawn with (spinners, elapsed, uptime); fixed in tests. It ticks
// on the interval's boundaries counted from `origin` (the cluster's start): the uptime
// shown changes once a tick, so a tick is never a frame that looks like the last one.
import { useEffect, useState } from 'react';

export function useClock(intervalMs: number, fixed?: number, origin = 0): number {
  const [now, setNow] = useState(() => fixed ?? Date.now());
  useEffect(() => {
    if (fixed !== undefined) return;
    let t: NodeJS.Timeout | undefined;
    const next = () => {
      const into = (((Date.now() - origin) % intervalMs) + intervalMs) % intervalMs;
      t = setTimeout(() => {
        setNow(Date.now());
        next();
      }, intervalMs - into);
    };
    next();
    return () => clearTimeout(t);
  }, [intervalMs, fixed, origin]);
  return fixed ?? now;
}
