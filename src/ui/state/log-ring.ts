// The log pane's memory: a fixed-size ring of the newest lines, each cut to a maximum
// length, so the dashboard stays bounded however much the processes print.
export type LogLevel = 'error' | 'warning' | 'info';

export interface LogLine {
  seq: number;
  host: string;
  /** The process (scheduler or worker name) or `sshcluster` for notices. */
  source: string;
  text: string;
  level: LogLevel;
}

export const LOG_CAPACITY = 5_000;
export const MAX_LINE_CHARS = 500;

export function levelOf(text: string): LogLevel {
  if (/\b(ERROR|CRITICAL|FATAL)\b|^Traceback/.test(text)) return 'error';
  if (/\bWARN(ING)?\b/.test(text)) return 'warning';
  return 'info';
}

export class LogRing {
  private readonly items: (LogLine | undefined)[];
  private next = 0;

  constructor(readonly capacity = LOG_CAPACITY) {
    this.items = new Array<LogLine | undefined>(capacity);
  }

  push(host: string, source: string, text: string, level: LogLevel = levelOf(text)): void {
    const cut = text.length > MAX_LINE_CHARS ? text.slice(0, MAX_LINE_CHARS - 1) + '…' : text;
    this.items[this.next % this.capacity] = { seq: this.next, host, source, text: cut, level };
    this.next++;
  }

  get size(): number {
    return Math.min(this.next, this.capacity);
  }

  /** seq of the newest line, -1 when empty. */
  get newest(): number {
    return this.next - 1;
  }

  get oldest(): number {
    return Math.max(0, this.next - this.capacity);
  }

  at(seq: number): LogLine | undefined {
    return seq >= this.oldest && seq < this.next ? this.items[seq % this.capacity] : undefined;
  }

  /**
   * Up to n matching lines ending at `bottom` (inclusive; the newest when null), oldest
   * first. Scans back at most the whole ring: ≤ 5,000 steps per frame.
   */
  window(n: number, match: (l: LogLine) => boolean, bottom: number | null): LogLine[] {
    const out: LogLine[] = [];
    for (let s = Math.min(bottom ?? this.newest, this.newest); s >= this.oldest && out.length < n; s--) {
      const l = this.items[s % this.capacity]!;
      if (match(l)) out.push(l);
    }
    return out.reverse();
  }

  /** The matching lines up to `bottom` (inclusive; the newest when null) and in all: where a pinned view is. */
  position(match: (l: LogLine) => boolean, bottom: number | null): { at: number; total: number } {
    let at = 0;
    let total = 0;
    const last = bottom ?? this.newest;
    for (let s = this.oldest; s <= this.newest; s++) {
      if (!match(this.items[s % this.capacity]!)) continue;
      total++;
      if (s <= last) at++;
    }
    return { at, total };
  }

  /** seq of the matching line `steps` away from `from` (negative: older); clamped. */
  step(from: number, steps: number, match: (l: LogLine) => boolean): number {
    let at = from;
    const dir = steps < 0 ? -1 : 1;
    for (let left = Math.abs(steps), s = from + dir; left > 0 && s >= this.oldest && s <= this.newest; s += dir) {
      if (match(this.items[s % this.capacity]!)) {
        at = s;
        left--;
      }
    }
    return at;
  }
}
