// Column formatting for the dashboard's tables: fixed widths, short units (the units
// are status's too: events/units.ts).
export { bytes, duration } from '../../events/units.js';

export function pad(s: string, n: number): string {
  return s.length >= n ? s.slice(0, Math.max(0, n - 1)) + ' ' : s + ' '.repeat(n - s.length);
}

export function fit(s: string, n: number): string {
  return s.length <= n ? s : n <= 1 ? s.slice(0, n) : s.slice(0, n - 1) + '…';
}

const SPINNER = '⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏';

export function spinner(now: number): string {
  return SPINNER[Math.floor(now / 100) % SPINNER.length]!;
}

export function sum(xs: (number | undefined)[]): number | undefined {
  const known = xs.filter((x): x is number => x !== undefined);
  return known.length ? known.reduce((a, b) => a + b, 0) : undefined;
}
