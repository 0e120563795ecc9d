// Remote output is drained for the whole life of a process (Dask's SSHCluster stops
// reading and its workers block once the pipe fills: dask/distributed#9033). Lines are
// split here on raw bytes, over-long ones cut, and a line the caller does not admit
// (its output budget is spent) is never decoded: a flood costs little more than reading.
import type { Readable } from 'node:stream';

/** The longest line kept whole; the rest of a longer one is cut (here, and by `exec`). */
export const MAX_LINE = 16 * 1024;
const NL = 0x0a;
const CUT = ' …[cut]';
const CONTINUED = '[cut]… ';

/**
 * `admit` sees each raw line first, as buf[start, end) without the newline (no copy: a
 * flood of dropped lines allocates nothing per line); false drops it.
 */
export type Admit = (buf: Buffer, start: number, end: number) => boolean;

export function splitLines(stream: Readable, onLine: (line: string) => void, admit: Admit = () => true): void {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  // The rest of a cut line starts with a marker too: it is not a line of its own.
  let continued = false;
  const emit = (buf: Buffer, start: number, end: number, suffix = '') => {
    const prefix = continued ? CONTINUED : '';
    continued = suffix !== '';
    if (admit(buf, start, end)) onLine(prefix + trimCr(buf.toString('utf8', start, end)) + suffix);
  };
  stream.on('data', (chunk: Buffer | string) => {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    let start = 0;
    let nl: number;
    while ((nl = buf.indexOf(NL, start)) >= 0) {
      if (pendingBytes) {
        const line = Buffer.concat([...pending, buf.subarray(start, nl)]);
        emit(line, 0, line.length);
        pending = [];
        pendingBytes = 0;
      } else {
        emit(buf, start, nl);
      }
      start = nl + 1;
    }
    if (start >= buf.length) return;
    pending.push(buf.subarray(start));
    pendingBytes += buf.length - start;
    while (pendingBytes > MAX_LINE) {
      const all = Buffer.concat(pending);
      const cut = charBoundary(all, MAX_LINE);
      emit(all, 0, cut, CUT);
      pending = [all.subarray(cut)];
      pendingBytes = all.length - cut;
    }
  });
  stream.on('end', () => {
    if (pendingBytes) {
      const line = Buffer.concat(pending);
      emit(line, 0, line.length);
    }
    pending = [];
    pendingBytes = 0;
  });
}

/** The largest offset ≤ at that does not split a UTF-8 sequence (or `at` if there is none). */
/** `at`, moved back to the start of the UTF-8 character it falls in. */
export function charBoundary(buf: Buffer, at: number): number {
  let i = at;
  while (i > at - 4 && i > 0 && (buf[i]! & 0xc0) === 0x80) i--;
  return i > 0 ? i : at;
}

function trimCr(s: string): string {
  return s.endsWith('\r') ? s.slice(0, -1) : s;
}

/** Keeps the last `size` items. */
export class Ring<T> {
  private items: T[] = [];
  constructor(private readonly size: number) {}
  push(item: T): void {
    this.items.push(item);
    if (this.items.length > this.size) this.items.splice(0, this.items.length - this.size);
  }
  toArray(): T[] {
    return [...this.items];
  }
}
