// Option parsers shared by commands: a bad value is a usage error (exit 2).
import { InvalidArgumentError } from 'commander';
import { DURATION_TOO_LONG, MAX_DURATION_MS, parseDuration } from '../config/durations.js';
import { CLUSTER_NAME } from '../config/names.js';

/** --name: the same rule as the host file's `name:`, so it is safe as a directory name. */
export function clusterName(value: string): string {
  if (!CLUSTER_NAME.re.test(value))
    throw new InvalidArgumentError(`${CLUSTER_NAME.expected}, got ${JSON.stringify(value)}`);
  return value;
}

export function positiveInt(value: string): number {
  return count(value, 1);
}

export function wholeNumber(value: string): number {
  return count(value, 0);
}

/** Decimal digits only (Number() also reads 1e3, 0x10, 2.0), within what a number holds exactly. */
function count(value: string, min: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n < min)
    throw new InvalidArgumentError(`expected a whole number ≥ ${min}, got "${value}"`);
  if (!Number.isSafeInteger(n))
    throw new InvalidArgumentError(`expected a whole number from ${min} to ${Number.MAX_SAFE_INTEGER}, got "${value}"`);
  return n;
}

/** --metrics: `[HOST]:PORT` or `PORT`; no host means loopback. */
export function listenAddress(value: string): { host: string; port: number } {
  const m = /^(?:(\[[0-9a-fA-F:]+\]|[\w.-]*):)?(\d+)$/.exec(value.trim());
  const port = Number(m?.[2]);
  if (!m || !Number.isInteger(port) || port < 0 || port > 65535)
    throw new InvalidArgumentError(`expected [HOST]:PORT, e.g. :9464 or 0.0.0.0:9464, got "${value}"`);
  // The system's pick would be said nowhere.
  if (port === 0)
    throw new InvalidArgumentError(`expected a port from 1 to 65535 (a scraper must know it), got "${value}"`);
  const host = (m[1] ?? '').replace(/^\[|\]$/g, '');
  return { host: host || '127.0.0.1', port };
}

export function seconds(value: string): number {
  // The host file's reading (Dask's units: 500ms, 60s, 2m, 1h, 2d, "5 seconds") and bound:
  // each flag ends up in a setTimeout.
  let ms: number;
  try {
    ms = parseDuration(value);
  } catch {
    throw new InvalidArgumentError(`expected a duration like 60s, 2m, 1h or 500ms, got "${value}"`);
  }
  if (ms > MAX_DURATION_MS) throw new InvalidArgumentError(`${DURATION_TOO_LONG}, got "${value}"`);
  return ms / 1000;
}

/** A time limit: a duration above 0 (0 would give up before starting). */
export function timeLimit(value: string): number {
  const s = seconds(value);
  if (s <= 0) throw new InvalidArgumentError(`expected a time limit above 0, like 60s or 2m, got "${value}"`);
  return s;
}
