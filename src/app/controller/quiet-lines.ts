// Our own start-up lines (dask/setup-lines.ts) are held back from the log files, the
// dashboard and `logs -f`: every worker start added ~9 of them. A process that exits
// unexpectedly gets them back, just before its exit, so a failure shows everything.
import type { ClusterEvent } from '../../events/types.js';

type ProcessLine = Extract<ClusterEvent, { kind: 'process-line' }>;

/** Lines held per process: the newest start's, at most this many. */
export const QUIET_KEPT = 40;

export class QuietLines {
  private readonly held = new Map<string, ProcessLine[]>();

  constructor(
    private readonly quiet: (line: string) => boolean,
    private readonly kept = QUIET_KEPT,
  ) {}

  /** The events to pass on for `e`, in order: none for a held line. */
  pass(e: ClusterEvent): ClusterEvent[] {
    if (e.kind === 'process-line' && this.quiet(e.line)) {
      const lines = this.held.get(e.name) ?? [];
      lines.push(e);
      if (lines.length > this.kept) lines.shift();
      this.held.set(e.name, lines);
      return [];
    }
    if (e.kind !== 'process-exit') return [e];
    const lines = this.held.get(e.name) ?? [];
    this.held.delete(e.name);
    return e.expected ? [e] : [...lines, e];
  }
}
