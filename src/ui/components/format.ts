// Column formatting for the dashboard's tables: fixed widths, short units.
export function pad(s: string, n: number): string {
  return s.length >= n ? s.slice(0, Math.max(0, n - 1)) + ' ' : s + ' '.repeat(n - s.length);
}

export function fit(s: string, n: number): string {
  return s.length <= n ? s : n <= 1 ? s.slice(0, n) : s.slice(0, n - 1) + '…';
}

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

export function duration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  const h = Math.floor(m / 60);
  return h < 48 ? `${h}h${String(m % 60).padStart(2, '0')}m` : `${Math.floor(h / 24)}d${h % 24}h`;
}

const SPINNER = '⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏';

export function spinner(now: number): string {
  return SPINNER[Math.floor(now / 100) % SPINNER.length]!;
}

export function sum(xs: (number | undefined)[]): number | undefined {
  const known = xs.filter((x): x is number => x !== undefined);
  return known.length ? known.reduce((a, b) => a + b, 0) : undefined;
}
