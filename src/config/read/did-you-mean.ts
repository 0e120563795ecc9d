// Hints for unknown keys: a near spelling at the same place, or the section the key
// belongs to ("port" written on a host instead of under connect_options), whichever
// is the likelier reading first.

/** The closest valid key within a few edits, and how many. */
function nearest(key: string, valid: readonly string[]): { name: string; d: number } | undefined {
  const k = key.toLowerCase();
  let best: { name: string; d: number } | undefined;
  for (const name of valid) {
    const d = distance(k, name.toLowerCase());
    if (d <= maxDistance(name) && (!best || d < best.d)) best = { name, d };
  }
  return best;
}

/** Short keys get less slack so "env" does not suggest "port". */
function maxDistance(name: string): number {
  return name.length <= 3 ? 1 : 2;
}

/** Optimal string alignment distance (Levenshtein plus adjacent transpositions). */
export function distance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) rows.push(Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : 0)));
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i]!;
    const prev = rows[i - 1]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        row[j] = Math.min(row[j]!, rows[i - 2]![j - 2]! + 1);
      }
    }
  }
  return rows[a.length]![b.length]!;
}

export function unknownKeyHint(
  key: string,
  valid: readonly string[],
  sections: Readonly<Record<string, readonly string[]>> = {},
): string | undefined {
  const near = nearest(key, valid);
  const home = Object.keys(sections).find((section) => valid.includes(section) && sections[section]!.includes(key));
  // One edit from a key of this level is a typo ("host" for "hosts" at the top) more
  // likely than a key of another section written here; two edits are not ("port" on a
  // host is not "host"). The other reading, if any, comes second.
  if (near && (near.d <= 1 || !home)) return `did you mean "${near.name}"?${home ? ` (or ${home}.${key})` : ''}`;
  if (home) return `"${key}" belongs under ${home}`;
  return `expected one of ${valid.join(', ')}`;
}
