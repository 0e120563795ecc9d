// Unmet demand is said once, not every interval: a tick's unmet demand is compared
// with what was last said, and a line (per kind of demand) is logged only when it is new
// or what can be placed changed (the placeable count or the reasons): Dask's target
// moves with the tasks, and "target 5, 2 placeable", "target 6, 2 placeable", … would
// say the same thing at every step. The current line is still what status shows. Also
// a line when demand that was unmet is met or gone, once it has been for `clearAfter`
// ticks in a row (adaptive's wait_count): a tick at target does not mean the demand is
// met. Pure; the caller keeps the returned `current` for the next tick.
import type { UnmetDemand } from './resource-placement.js';

export interface Unmet {
  line: string;
  /** What can be placed, as last said: a change is said again. */
  placing: string;
  /** Ticks in a row it has not been unmet. */
  misses: number;
}

export interface UnmetNotices {
  /** Lines to log now: new or changed since the last tick. */
  said: string[];
  /** Kinds of demand ("GPU", "plain", …) unmet before and met for clearAfter ticks now. */
  cleared: string[];
  /** what → its line, to pass back next tick (and to show as unmet). */
  current: ReadonlyMap<string, Unmet>;
}

export function unmetNotices(
  last: ReadonlyMap<string, Unmet>,
  unmet: readonly UnmetDemand[],
  clearAfter = 1,
): UnmetNotices {
  const current = new Map(
    unmet.map((u) => [u.what, { line: u.line, placing: `${u.placeable}: ${u.reasons.join('; ')}`, misses: 0 }]),
  );
  const said = [...current].filter(([what, u]) => last.get(what)?.placing !== u.placing).map(([, u]) => u.line);
  const cleared: string[] = [];
  for (const [what, u] of last) {
    if (current.has(what)) continue;
    if (u.misses + 1 >= clearAfter) cleared.push(what);
    else current.set(what, { ...u, misses: u.misses + 1 });
  }
  return { said, cleared, current };
}
