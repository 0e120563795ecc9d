// What the adaptive policy decided and why, for `status --json` and the dashboard.
// Like AdaptiveCore.log (a deque), but bounded small and recording "none" too, because
// "why did it not scale down" is the usual question. A step repeating the previous
// entry (same decision, target, current, reason) bumps its count instead of pushing,
// so a steady cluster does not flush the interesting entries out; the raw target may
// wobble meanwhile and is not part of that sameness (the record keeps the latest).

export type DecisionKind = 'up' | 'down' | 'none';

export interface DecisionLogEntry {
  /** Clock value (ms) of the step. */
  time: number;
  /** Target after correction and clipping. */
  target: number;
  /** Workers in the plan (registered + not yet arrived). */
  current: number;
  decision: DecisionKind;
  reason: string;
  /** The scheduler's number before correction and clipping (a repeated record: the latest). */
  rawTarget?: number;
}

export interface DecisionLogRecord extends DecisionLogEntry {
  /** Steps this record stands for (1 unless repeated). */
  count: number;
  /** Time of the last repeat (= time when count is 1). */
  lastTime: number;
}

export interface DecisionLogJSON {
  capacity: number;
  /** Records pushed out of the ring so far. */
  dropped: number;
  entries: DecisionLogRecord[];
}

export const DEFAULT_DECISION_LOG_CAPACITY = 200;

export class DecisionLog {
  private readonly ring: (DecisionLogRecord | undefined)[];
  private start = 0;
  private length = 0;
  private droppedCount = 0;

  constructor(readonly capacity: number = DEFAULT_DECISION_LOG_CAPACITY) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
    this.ring = new Array<DecisionLogRecord | undefined>(capacity);
  }

  get size(): number {
    return this.length;
  }

  get dropped(): number {
    return this.droppedCount;
  }

  push(entry: DecisionLogEntry): void {
    const last = this.at(this.length - 1);
    if (last && sameDecision(last, entry)) {
      last.count++;
      last.lastTime = entry.time;
      if (entry.rawTarget !== undefined) last.rawTarget = entry.rawTarget;
      return;
    }
    const record: DecisionLogRecord = { ...entry, count: 1, lastTime: entry.time };
    if (this.length < this.capacity) {
      this.ring[(this.start + this.length) % this.capacity] = record;
      this.length++;
    } else {
      this.ring[this.start] = record;
      this.start = (this.start + 1) % this.capacity;
      this.droppedCount++;
    }
  }

  /** The last n records (all when n is omitted), oldest first. Copies. */
  recent(n: number = this.length): DecisionLogRecord[] {
    const k = Math.max(0, Math.min(Math.floor(n), this.length));
    const out: DecisionLogRecord[] = [];
    for (let i = this.length - k; i < this.length; i++) {
      const r = this.at(i);
      if (r) out.push({ ...r });
    }
    return out;
  }

  toJSON(): DecisionLogJSON {
    return { capacity: this.capacity, dropped: this.droppedCount, entries: this.recent() };
  }

  private at(i: number): DecisionLogRecord | undefined {
    return i < 0 || i >= this.length ? undefined : this.ring[(this.start + i) % this.capacity];
  }
}

function sameDecision(a: DecisionLogEntry, b: DecisionLogEntry): boolean {
  return a.decision === b.decision && a.target === b.target && a.current === b.current && a.reason === b.reason;
}
