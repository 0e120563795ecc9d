// Host patterns as `--hosts` and `adaptive.groups.*.hosts` take them: a comma list of
// names, globs (node0*, rack?-n1) and pdsh ranges (node[01-04]). Errors are plain
// Errors; the caller knows where the pattern was written and wraps them.
import { expandHostPattern } from './host-ranges.js';

/** Ranges expand first (as in the host list), then each name may be a glob. */
export function hostMatcher(pattern: string): (name: string) => boolean {
  const items = splitOutsideBrackets(pattern)
    .map((s) => s.trim())
    .filter(Boolean);
  if (items.length === 0) throw new Error('empty host pattern');
  const tests = items.map(compile);
  return (name) => tests.some((t) => t(name));
}

function compile(item: string): (name: string) => boolean {
  const names = expandHostPattern(item);
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
