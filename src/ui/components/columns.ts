// Table columns sized to the terminal: each has a width and a drop rank; when the row
// does not fit, the column with the lowest rank goes first. The last column kept takes
// what is left (and is cut by the terminal if even that is short).
export interface Column<R> {
  title: string;
  width: number;
  /** Lower goes first when the terminal is narrow; undefined: never dropped. */
  drop?: number;
  /** Kept cells are as wide as `width` (the last one: as wide as its text). */
  cell(r: R): string;
  /** The least room the last column needs to be worth showing. */
  min?: number;
}

/** The columns that fit in `width` (after a 2-character selection marker). */
export function fitColumns<R>(cols: readonly Column<R>[], width: number): Column<R>[] {
  let kept = [...cols];
  const need = (cs: Column<R>[]) =>
    2 + cs.slice(0, -1).reduce((s, c) => s + c.width, 0) + (cs.at(-1)?.min ?? cs.at(-1)?.width ?? 0);
  while (need(kept) > width) {
    const droppable = kept.filter((c) => c.drop !== undefined).sort((a, b) => a.drop! - b.drop!)[0];
    if (!droppable) break;
    kept = kept.filter((c) => c !== droppable);
  }
  return kept;
}

/** The header line of these columns. */
export function headerOf<R>(cols: readonly Column<R>[]): string {
  return '  ' + cols.map((c, i) => (i === cols.length - 1 ? c.title : c.title.padEnd(c.width))).join('');
}

/** Width for a name column: its longest name (at least the title), at most `max`. */
export function nameWidth(title: string, names: readonly string[], max: number): number {
  return Math.min(max, Math.max(title.length, ...names.map((n) => n.length)) + 2);
}
