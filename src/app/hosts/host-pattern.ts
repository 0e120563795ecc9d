// --hosts PATTERN: a comma list of host names, globs (node0*, rack?-n1) or ranges
// (node[01-04]), matched against the names in the host file.
import { expandHostPattern } from '../../config/host-ranges.js';
import { UsageError } from '../../errors.js';

export function matchHosts<T extends { name: string }>(hosts: readonly T[], pattern: string): T[] {
  const items = splitOutsideBrackets(pattern).map((s) => s.trim()).filter(Boolean);
  if (items.length === 0) throw new UsageError(`--hosts: empty pattern`);
  const tests = items.map(compile);
  const picked = hosts.filter((h) => tests.some((t) => t(h.name)));
  if (picked.length === 0) {
    const names = hosts.map((h) => h.name);
    const shown = names.length > 8 ? `${names.slice(0, 8).join(', ')}, …` : names.join(', ');
    throw new UsageError(`--hosts ${pattern}: no host in the host file matches`, { hint: `the hosts are: ${shown}` });
  }
  return picked;
}

/** Ranges expand first (as in the host file), then each name may be a glob. */
function compile(item: string): (name: string) => boolean {
  let names: string[];
  try {
    names = expandHostPattern(item);
  } catch (err) {
    throw new UsageError(`--hosts: ${(err as Error).message}`);
  }
  const globs = names.filter((n) => /[*?]/.test(n)).map((n) => new RegExp(`^${n.split('').map(globChar).join('')}$`));
  const exact = new Set(names);
  return (name) => exact.has(name) || globs.some((re) => re.test(name));
}

function globChar(c: string): string {
  if (c === '*') return '.*';
  if (c === '?') return '.';
  return c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
}

function splitOutsideBrackets(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const c of s) {
    if (c === '[') depth += 1;
    if (c === ']') depth = Math.max(0, depth - 1);
    if (c === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

/** Every host of the spec once, the scheduler host first. */
export function clusterHosts<T extends { name: string }>(spec: { schedulerHost: T; workerHosts: readonly T[] }): T[] {
  const seen = new Map<string, T>([[spec.schedulerHost.name, spec.schedulerHost]]);
  for (const h of spec.workerHosts) if (!seen.has(h.name)) seen.set(h.name, h);
  return [...seen.values()];
}
