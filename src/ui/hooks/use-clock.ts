// The time frames are drawn with (spinners, elapsed, uptime); fixed in tests. It ticks
// on the interval's boundaries counted from `origin` (the cluster's start): the uptime
// shown changes once a tick, so a tick is never a frame that looks like the last one.
import { useEffect, useState } from 'react';

export function useClock(interval: number | ((sinceOrigin: number) => number), fixed?: number, origin = 0): number {
  const [now, setNow] = useState(() => fixed ?? Date.now());
  useEffect(() => {
    if (fixed !== undefined) return;
    let t: NodeJS.Timeout | undefined;
    const next = () => {
      const since = Date.now() - origin;
      // A function says when what it shows changes next (the uptime: each second, then each minute).
      const wait =
        typeof interval === 'function' ? interval(since) : interval - (((since % interval) + interval) % interval);
      t = setTimeout(() => {
        setNow(Date.now());
        next();
      }, wait);
    };
    next();
    return () => clearTimeout(t);
  }, [interval, fixed, origin]);
  return fixed ?? now;
}
