// Remote output is drained for the whole life of a process (Dask's SSHCluster stops
// reading and its workers block once the pipe fills: dask/distributed#9033). Lines are
// split here, over-long ones cut, and only a bounded tail is kept.
import type { Readable } from 'node:stream';

const MAX_LINE = 16 * 1024;

export function splitLines(stream: Readable, onLine: (line: string) => void): void {
  let pending = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    pending += chunk;
    let nl: number;
    while ((nl = pending.indexOf('\n')) >= 0) {
      onLine(trimCr(pending.slice(0, nl)));
      pending = pending.slice(nl + 1);
    }
    while (pending.length > MAX_LINE) {
      onLine(pending.slice(0, MAX_LINE) + ' …[cut]');
      pending = pending.slice(MAX_LINE);
    }
  });
  stream.on('end', () => {
    if (pending) onLine(trimCr(pending));
    pending = '';
  });
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
