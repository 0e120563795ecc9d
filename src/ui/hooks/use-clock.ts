// The time frames are drawn with (spinners, elapsed, uptime); fixed in tests.
import { useEffect, useState } from 'react';

export function useClock(intervalMs: number, fixed?: number): number {
  const [now, setNow] = useState(() => fixed ?? Date.now());
  useEffect(() => {
    if (fixed !== undefined) return;
    const t = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(t);
  }, [intervalMs, fixed]);
  return fixed ?? now;
}
