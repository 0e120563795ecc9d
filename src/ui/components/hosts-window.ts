// Which hosts a table of `rows` rows shows: all when they fit; else a window that keeps
// the selection in view and, on its last row, how many it leaves out ("+N more").
export function hostsWindow(
  count: number,
  rows: number,
  selected: number,
): { first: number; shown: number; more: number } {
  if (count <= rows) return { first: 0, shown: count, more: 0 };
  const shown = Math.max(1, rows - 1);
  const first = Math.max(0, Math.min(selected - shown + 1, count - shown));
  return { first, shown, more: count - shown };
}
