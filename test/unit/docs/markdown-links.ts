// Relative links and #anchors of markdown files, as GitHub renders them: pure functions
// over text, so the link test reads files and nothing else.

/** Text outside fenced code blocks, line by line (fence lines blanked, numbering kept). */
export function proseLines(md: string): string[] {
  let fence: string | undefined;
  return md.split('\n').map((line) => {
    const open = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fence === undefined && open) {
      fence = open[1]![0]!.repeat(open[1]!.length);
      return '';
    }
    if (fence !== undefined) {
      if (line.trim().startsWith(fence)) fence = undefined;
      return '';
    }
    return line;
  });
}

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  const text = heading
    .replace(/`/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{N}\p{M} _-]/gu, '').replace(/ /g, '-');
}

/** Every anchor the file's headings make, with GitHub's -1, -2 … for repeats. */
export function anchors(md: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of proseLines(md)) {
    const h = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!h) continue;
    const base = slug(h[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

export interface Link {
  line: number;
  target: string;
}

/** Links that stay in the repository: no scheme, no protocol-relative `//`. */
export function relativeLinks(md: string): Link[] {
  const out: Link[] = [];
  proseLines(md).forEach((raw, i) => {
    // Code spans hold examples, not links; keep their place so link text may be code.
    const line = raw.replace(/`[^`]*`/g, 'code');
    for (const m of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue;
      out.push({ line: i + 1, target });
    }
  });
  return out;
}
