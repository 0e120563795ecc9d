// The newest process lines the controller has seen, for `attach`: handed over with the
// subscription in one step, so the first live line follows the last recent one with
// nothing lost or shown twice. Bounded in lines and in bytes (a line is up to 16 KiB).
import type { ClusterEvent } from '../../events/types.js';

export type ProcessLine = Extract<ClusterEvent, { kind: 'process-line' }>;

export const RECENT_LINES = 200;
/** Well under the control protocol's 1 MiB message, which also carries the status. */
export const RECENT_BYTES = 256 * 1024;

export class RecentLines {
  private lines: ProcessLine[] = [];
  private bytes = 0;

  constructor(
    private readonly maxLines = RECENT_LINES,
    private readonly maxBytes = RECENT_BYTES,
  ) {}

  push(e: ProcessLine): void {
    this.lines.push(e);
    this.bytes += e.line.length;
    while (this.lines.length > this.maxLines || (this.bytes > this.maxBytes && this.lines.length > 1)) {
      this.bytes -= this.lines.shift()!.line.length;
    }
  }

  /** Oldest first. */
  list(): ProcessLine[] {
    return [...this.lines];
  }
}
