// The reverse of host ranges: ["node01", "node02", "node04"] → "node[01-02,04]", the
// way pdsh and clush print folded host sets.

export function compressHosts(names: readonly string[]): string {
  const groups = new Map<string, { prefix: string; nums: string[] }>();
  const plain: string[] = [];
  for (const name of names) {
    const m = /^(.*?)(\d+)$/.exec(name);
    if (!m) {
      plain.push(name);
      continue;
    }
    const prefix = m[1]!;
    const g = groups.get(prefix) ?? { prefix, nums: [] };
    g.nums.push(m[2]!);
    groups.set(prefix, g);
  }
  const parts: string[] = [...plain];
  for (const g of groups.values()) {
    const nums = [...new Set(g.nums)].sort((a, b) => Number(a) - Number(b) || a.length - b.length);
    if (nums.length === 1) parts.push(g.prefix + nums[0]);
    else parts.push(`${g.prefix}[${ranges(nums).join(',')}]`);
  }
  return parts.join(',');
}

/** Consecutive numbers written with the same width join into "a-b". */
function ranges(nums: string[]): string[] {
  const out: string[] = [];
  let start = nums[0]!;
  let prev = start;
  const flush = (): void => void out.push(start === prev ? start : `${start}-${prev}`);
  for (const n of nums.slice(1)) {
    if (Number(n) === Number(prev) + 1 && sameWidth(n, prev)) {
      prev = n;
      continue;
    }
    flush();
    start = prev = n;
  }
  flush();
  return out;
}

// "9" → "10" continues a range; "09" → "10" continues a padded one; "09" → "010" does not.
function sameWidth(a: string, b: string): boolean {
  const padded = (s: string): boolean => s.length > 1 && s.startsWith('0');
  return a.length === b.length || (!padded(a) && !padded(b));
}
