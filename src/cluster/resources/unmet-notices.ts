// Unmet demand is said once, not every interval: a tick's unmet lines are compared
// with the last tick's, and only a new or changed line (per kind of demand) is logged,
// plus a line when demand that was unmet is met or gone. Pure; the caller keeps the
// returned `current` for the next tick.
import type { UnmetDemand } from './placement.js';

export interface UnmetNotices {
  /** Lines to log now: new or changed since the last tick. */
  said: string[];
  /** Kinds of demand ("GPU", "plain", …) unmet last tick and not any more. */
  cleared: string[];
  /** what → line, to pass back next tick. */
  current: ReadonlyMap<string, string>;
}

export function unmetNotices(last: ReadonlyMap<string, string>, unmet: readonly UnmetDemand[]): UnmetNotices {
  const current = new Map(unmet.map((u) => [u.what, u.line]));
  const said = [...current].filter(([what, line]) => last.get(what) !== line).map(([, line]) => line);
  const cleared = [...last.keys()].filter((what) => !current.has(what));
  return { said, cleared, current };
}
