// pdsh-style host ranges: "node[01-04]", "node[1-3,7]", "r[1-2]n[1-2]". Errors are
// thrown as plain Errors; the caller knows the YAML position and wraps them.

/** Guards against "node[0-99999999]" exhausting memory on a typo. */
export const MAX_EXPANDED_HOSTS = 10_000;

export function expandHostPattern(pattern: string): string[] {
  let names = [''];
  let rest = pattern;
  while (rest.length > 0) {
    const open = rest.indexOf('[');
    const close = rest.indexOf(']');
    if (close !== -1 && (open === -1 || close < open)) throw new Error(`unexpected "]" in "${pattern}"`);
    if (open === -1) return appendAll(names, [rest]);
    const end = rest.indexOf(']', open);
    if (end === -1) throw new Error(`unclosed "[" in "${pattern}"`);
    const body = rest.slice(open + 1, end);
    if (body.includes('[')) throw new Error(`nested "[" in "${pattern}"`);
    names = appendAll(appendAll(names, [rest.slice(0, open)]), expandGroup(body, pattern));
    if (names.length > MAX_EXPANDED_HOSTS) {
      throw new Error(`"${pattern}" expands to more than ${MAX_EXPANDED_HOSTS} hosts`);
    }
    rest = rest.slice(end + 1);
  }
  if (names.length === 1 && names[0] === '') throw new Error('empty host name');
  return names;
}

function appendAll(prefixes: string[], suffixes: string[]): string[] {
  return prefixes.flatMap((p) => suffixes.map((s) => p + s));
}

function expandGroup(body: string, pattern: string): string[] {
  if (body.trim() === '') throw new Error(`empty range "[]" in "${pattern}"`);
  return body.split(',').flatMap((part) => expandPart(part.trim(), pattern));
}

function expandPart(part: string, pattern: string): string[] {
  const m = /^([0-9]+)(?:-([0-9]+))?$/.exec(part);
  if (!m?.[1]) throw new Error(`bad range "${part}" in "${pattern}": expected N, N-M or a list of them`);
  const [lo, hi] = [m[1], m[2] ?? m[1]];
  const [from, to] = [Number(lo), Number(hi)];
  if (to < from) throw new Error(`reversed range "${part}" in "${pattern}": ${lo} is greater than ${hi}`);
  if (to - from >= MAX_EXPANDED_HOSTS) {
    throw new Error(`"${pattern}" expands to more than ${MAX_EXPANDED_HOSTS} hosts`);
  }
  // A leading zero on either bound means "pad to that width" (pdsh: node[01-10]).
  const padded = (lo.length > 1 && lo.startsWith('0')) || (hi.length > 1 && hi.startsWith('0'));
  const width = padded ? Math.max(lo.length, hi.length) : 0;
  const out: string[] = [];
  for (let i = from; i <= to; i++) out.push(String(i).padStart(width, '0'));
  return out;
}
