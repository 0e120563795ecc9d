// What `exec` keeps of one host's output: whole lines, stdout and stderr interleaved a
// line at a time, the newest up to a byte bound. Older lines go whole, and one marker at
// the top says how many lines and bytes went, so no partial line reads as a whole one.
// A line longer than its own bound keeps its head and says what was cut of it. Memory
// stays bounded whatever the host prints: the kept lines plus one bounded partial line
// per stream.
import { charBoundary, MAX_LINE } from '../transport/line-splitter.js';

/** Per host; the newest lines are kept when a command prints more. */
export const MAX_OUTPUT_BYTES = 1024 * 1024;
/** Per line, the controller's line splitter's bound; the rest of a longer line is counted, not kept. */
export const MAX_LINE_BYTES = MAX_LINE;

type Stream = 'out' | 'err';

interface OpenLine {
  text: string;
  bytes: number;
  /** Bytes of this line past MAX_LINE_BYTES, dropped. */
  cut: number;
}

interface Line {
  text: string;
  /** What the host printed for it, newline included. */
  bytes: number;
  /** What it holds here (with any marker). */
  held: number;
}

export class OutputTail {
  private lines: Line[] = [];
  /** Index of the oldest kept line in `lines` (dropping from the front without shifting). */
  private head = 0;
  /** Of the kept lines as printed, and as held here (with any marker), for the bound. */
  private printed = 0;
  private held = 0;
  private cutLines = 0;
  private cutBytes = 0;
  private endsWithNewline = false;
  private partial: Record<Stream, OpenLine> = { out: empty(), err: empty() };

  private readonly maxBytes: number;
  private readonly maxLineBytes: number;
  /** Called with each whole line (a long one cut and marked) as it ends: --no-fold. */
  private readonly onLine?: (line: string) => void;

  constructor(o: { maxBytes?: number; maxLineBytes?: number; onLine?: (line: string) => void } = {}) {
    this.maxBytes = o.maxBytes ?? MAX_OUTPUT_BYTES;
    this.maxLineBytes = o.maxLineBytes ?? MAX_LINE_BYTES;
    this.onLine = o.onLine;
  }

  get truncated(): boolean {
    return this.cutLines > 0;
  }

  /** The whole lines dropped from the front, and their bytes: what the marker line says. */
  get cut(): { lines: number; bytes: number } | undefined {
    return this.truncated ? { lines: this.cutLines, bytes: this.cutBytes } : undefined;
  }

  push(text: string, stream: Stream): void {
    let start = 0;
    let nl: number;
    while ((nl = text.indexOf('\n', start)) >= 0) {
      this.extend(stream, text.slice(start, nl));
      this.finish(stream, true);
      start = nl + 1;
    }
    if (start < text.length) this.extend(stream, start === 0 ? text : text.slice(start));
  }

  /** The end of output: a last line without a newline is kept as it is. */
  flush(): void {
    for (const s of ['out', 'err'] as const) {
      const p = this.partial[s];
      if (p.bytes || p.cut) this.finish(s, false);
    }
  }

  text(): string {
    const kept = this.lines.slice(this.head);
    const body = kept.map((l) => l.text).join('\n') + (this.endsWithNewline ? '\n' : '');
    if (!this.truncated) return body;
    return `[… first ${this.cutLines} lines (${size(this.cutBytes)}) cut by sshcluster; the last ${kept.length} lines (${size(this.printed)}) follow]\n${body}`;
  }

  private extend(stream: Stream, piece: string): void {
    const p = this.partial[stream];
    const room = this.maxLineBytes - p.bytes;
    const n = Buffer.byteLength(piece);
    if (n <= room) {
      p.text += piece;
      p.bytes += n;
      return;
    }
    const keep = headBytes(piece, room);
    const kept = Buffer.byteLength(keep);
    p.text += keep;
    p.bytes += kept;
    p.cut += n - kept;
  }

  private finish(stream: Stream, newline: boolean): void {
    const p = this.partial[stream];
    this.partial[stream] = empty();
    const text = p.cut ? `${p.text} …[${p.cut} more bytes of this line cut]` : p.text;
    this.onLine?.(text);
    const line = { text, bytes: p.bytes + p.cut + (newline ? 1 : 0), held: Buffer.byteLength(text) + 1 };
    this.lines.push(line);
    this.printed += line.bytes;
    this.held += line.held;
    this.endsWithNewline = newline;
    while (this.held > this.maxBytes && this.head < this.lines.length - 1) this.dropOldest();
  }

  private dropOldest(): void {
    const gone = this.lines[this.head]!;
    this.lines[this.head++] = EMPTY_LINE;
    this.printed -= gone.bytes;
    this.held -= gone.held;
    this.cutLines += 1;
    this.cutBytes += gone.bytes;
    if (this.head > 1024 && this.head * 2 > this.lines.length) {
      this.lines = this.lines.slice(this.head);
      this.head = 0;
    }
  }
}

const EMPTY_LINE: Line = { text: '', bytes: 0, held: 0 };

function empty(): OpenLine {
  return { text: '', bytes: 0, cut: 0 };
}

/** The longest head of `s` of at most `max` UTF-8 bytes that ends on a whole character. */
function headBytes(s: string, max: number): string {
  if (max <= 0) return '';
  const buf = Buffer.from(s, 'utf8');
  return buf.length <= max ? s : buf.toString('utf8', 0, charBoundary(buf, max));
}

/** 512 → "512 B", 940,000 → "918.0 KiB"; from what rounds to 1024.0 KiB on, MiB. */
function size(b: number): string {
  if (b < 1024) return `${b} B`;
  const kib = (b / 1024).toFixed(1);
  return kib === '1024.0' || b >= 1024 * 1024 ? `${(b / (1024 * 1024)).toFixed(1)} MiB` : `${kib} KiB`;
}
