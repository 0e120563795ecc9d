// Memory and time spans in short units, one way for every view: the dashboard and
// `status` (text) print a worker's memory and the cluster's uptime alike.

/** 150M, 2.0G, 12G: powers of 1024, one decimal below 10. */
export function bytes(n: number | undefined): string {
  if (n === undefined) return '-';
  const units = ['B', 'K', 'M', 'G', 'T'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v >= 10 || u === 0 ? Math.round(v) : v.toFixed(1)}${units[u]}`;
}

/**
 * An uptime as the dashboard's header shows it: seconds for the first minute, then
 * minutes (42s, 3m, 2h07m, 3d4h), so an idle dashboard draws once a minute, not once a
 * second, for it.
 */
export function uptimeText(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  return s < 60 ? `${s}s` : duration(s * 1000).replace(/m\d\ds$/, 'm');
}

/** Milliseconds from `ms` of uptime until uptimeText shows something else. */
export function uptimeTextChangesIn(ms: number): number {
  const step = ms < 60_000 ? 1_000 : ms < 48 * 3_600_000 ? 60_000 : 3_600_000;
  return step - (Math.max(0, ms) % step);
}

/** 42s, 3m05s, 2h07m, 3d4h. */
export function duration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  const h = Math.floor(m / 60);
  return h < 48 ? `${h}h${String(m % 60).padStart(2, '0')}m` : `${Math.floor(h / 24)}d${h % 24}h`;
}
