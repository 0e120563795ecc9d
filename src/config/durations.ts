// Durations and byte sizes as Dask spells them (parse_timedelta / parse_bytes), so a
// value copied from a Dask config file means the same thing here.

const DURATION_UNITS_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  ms: 1,
  s: 1000,
  sec: 1000,
  secs: 1000,
  second: 1000,
  seconds: 1000,
  m: 60_000,
  min: 60_000,
  mins: 60_000,
  minute: 60_000,
  minutes: 60_000,
  h: 3_600_000,
  hr: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
  days: 86_400_000,
};

export const DURATION_EXPECTED = 'expected a duration like "10s", "500ms", "2m" or a number of seconds';
/**
 * The longest duration a host file or flag may ask for. Each ends up in a setTimeout
 * (connect_timeout, adaptive.interval) or is passed to Dask; Node's timers hold at most
 * 2^31-1 ms and fire at once, with a TimeoutOverflowWarning, beyond it.
 */
export const MAX_DURATION_MS = 2 ** 31 - 1;
export const DURATION_TOO_LONG = `expected at most ${MAX_DURATION_MS}ms (24.8 days), the longest a timer can wait`;
export const BYTES_EXPECTED = 'expected a size like "4GiB", "100 GB", "512MiB" or a number of bytes';

/** Milliseconds. A bare number (or numeric string) is in seconds, as in Dask. */
export function parseDuration(value: string | number): number {
  if (typeof value === 'number') return nonNegative(value * 1000, DURATION_EXPECTED);
  const m = /^\s*([0-9]*\.?[0-9]+(?:e[+-]?[0-9]+)?)\s*([a-z]*)\s*$/i.exec(value);
  const unit = m?.[2]?.toLowerCase() || 's';
  const factor = DURATION_UNITS_MS[unit];
  if (!m?.[1] || factor === undefined) throw new Error(DURATION_EXPECTED);
  return nonNegative(Number(m[1]) * factor, DURATION_EXPECTED);
}

const BYTE_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1e3,
  kb: 1e3,
  m: 1e6,
  mb: 1e6,
  g: 1e9,
  gb: 1e9,
  t: 1e12,
  tb: 1e12,
  p: 1e15,
  pb: 1e15,
  ki: 2 ** 10,
  kib: 2 ** 10,
  mi: 2 ** 20,
  mib: 2 ** 20,
  gi: 2 ** 30,
  gib: 2 ** 30,
  ti: 2 ** 40,
  tib: 2 ** 40,
  pi: 2 ** 50,
  pib: 2 ** 50,
};

/** Bytes, integer. kB = 1000, KiB = 1024, like dask.utils.parse_bytes. */
export function parseBytes(value: string | number): number {
  if (typeof value === 'number') return Math.floor(nonNegative(value, BYTES_EXPECTED));
  const m = /^\s*([0-9]*\.?[0-9]+(?:e[+-]?[0-9]+)?)?\s*([a-z]*)\s*$/i.exec(value);
  const factor = BYTE_UNITS[m?.[2]?.toLowerCase() ?? 'x'];
  if (!m || factor === undefined || (!m[1] && !m[2])) throw new Error(BYTES_EXPECTED);
  // "GiB" alone means one GiB, as in Dask.
  const n = m[1] === undefined ? 1 : Number(m[1]);
  return Math.floor(nonNegative(n * factor, BYTES_EXPECTED));
}

function nonNegative(n: number, expected: string): number {
  if (!Number.isFinite(n) || n < 0) throw new Error(expected);
  return n;
}
