// How much of one output stream of a process the controller takes in: a token bucket
// of lines and bytes a second, with a burst. Output past it is dropped (counted, and
// said by the caller), so a process printing without pause costs the controller bounded
// CPU, memory and disk, and the other processes' start, readiness and every command go
// on as without it. Pure: the clock is passed in.

export interface BudgetLimits {
  linesPerS: number;
  bytesPerS: number;
  /** Seconds of unused budget that may be spent at once (start-up, a traceback). */
  burstS: number;
}

/** Far above what Dask logs (a few lines a second, tracebacks of some dozen lines). */
export const DEFAULT_LIMITS: BudgetLimits = { linesPerS: 1_000, bytesPerS: 512 * 1024, burstS: 5 };

export interface Dropped {
  lines: number;
  bytes: number;
  /** When the first of them was dropped. */
  since: number;
}

export class OutputBudget {
  private lines: number;
  private bytes: number;
  private last: number;
  private dropped?: Dropped;

  constructor(
    readonly limits: BudgetLimits,
    private readonly now: () => number,
  ) {
    this.lines = limits.linesPerS * limits.burstS;
    this.bytes = limits.bytesPerS * limits.burstS;
    this.last = now();
  }

  /** true: keep this line of `bytes` bytes; false: it is dropped and counted. */
  admit(bytes: number): boolean {
    this.refill();
    if (this.lines >= 1 && this.bytes >= bytes) {
      this.lines -= 1;
      this.bytes -= bytes;
      return true;
    }
    this.dropped ??= { lines: 0, bytes: 0, since: this.now() };
    this.dropped.lines += 1;
    this.dropped.bytes += bytes;
    return false;
  }

  /** What was dropped since the last call, if anything. */
  takeDropped(): Dropped | undefined {
    const d = this.dropped;
    this.dropped = undefined;
    return d;
  }

  private refill(): void {
    const t = this.now();
    const s = Math.max(0, t - this.last) / 1000;
    this.last = t;
    const { linesPerS, bytesPerS, burstS } = this.limits;
    this.lines = Math.min(linesPerS * burstS, this.lines + s * linesPerS);
    this.bytes = Math.min(bytesPerS * burstS, this.bytes + s * bytesPerS);
  }
}

/** "name: 1.2 M lines of stdout dropped (97 MB in 10 s; over 1,000 lines or 512 KiB a second)". */
export function droppedText(name: string, stream: string, d: Dropped, limits: BudgetLimits, now: number): string {
  const s = Math.max(1, Math.round((now - d.since) / 1000));
  const rate = `over ${thousands(limits.linesPerS)} lines or ${Math.round(limits.bytesPerS / 1024)} KiB a second`;
  return `${name}: ${count(d.lines)} lines of ${stream} dropped (${size(d.bytes)} in ${s} s; ${rate})`;
}

/** 1000 → "1,000"; not toLocaleString, which loads ICU's number data (+5.8 MB of RSS in a Node process). */
function thousands(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+$)/g, ',');
}

function count(n: number): string {
  if (n < 1_000) return String(n);
  if (n < 1_000_000) return `${(n / 1_000).toFixed(1)} k`;
  return `${(n / 1_000_000).toFixed(1)} M`;
}

function size(b: number): string {
  if (b < 1024) return `${b} B`;
  if (b < 1024 * 1024) return `${(b / 1024).toFixed(0)} KiB`;
  return `${(b / (1024 * 1024)).toFixed(1)} MiB`;
}
