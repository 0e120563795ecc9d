// Per-process log files in the cluster's logs dir, for `sshcluster logs` while the
// controller runs and after it is gone. Workers can print thousands of lines a second,
// so lines are buffered and written in batches; a file is rotated at maxBytes and the
// in-memory buffer is bounded (lines are counted and dropped if the disk stalls).
import fsSync from 'node:fs';
import fs, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { decodeName, logFilePath, readTail, renameIfExists } from './log-files.js';

export interface LogStoreOptions {
  /** Size at which name.log is rotated to name.log.1 (default 5 MiB). */
  maxBytes?: number;
  /** Rotated files kept (default 1). */
  keep?: number;
  flushIntervalMs?: number;
  /** Per-name buffer bound before lines are dropped (default 8 MiB). */
  maxPendingBytes?: number;
  /** A failed write (disk full …); the batch is dropped, later ones are tried again. */
  onError?: (err: unknown, name: string) => void;
}

interface Writer {
  file: string;
  pending: string[];
  pendingBytes: number;
  dropped: number;
  fh?: FileHandle;
  size: number;
}

export class LogStore {
  private readonly maxBytes: number;
  private readonly keep: number;
  private readonly writers = new Map<string, Writer>();
  private readonly followers = new Map<string, Set<(line: string) => void>>();
  private timer?: NodeJS.Timeout;
  private chain: Promise<void> = Promise.resolve();
  private busy = false;
  private closed = false;

  constructor(
    private readonly logsDir: string,
    private readonly opts: LogStoreOptions = {},
  ) {
    this.maxBytes = opts.maxBytes ?? 5 * 1024 * 1024;
    this.keep = opts.keep ?? 1;
  }

  append(name: string, line: string): void {
    if (this.closed) return;
    const clean = line.includes('\n') || line.includes('\r') ? line.replace(/\r?\n|\r/g, ' ') : line;
    this.followers.get(name)?.forEach((f) => f(clean));
    const w = this.writer(name);
    if (w.pendingBytes > (this.opts.maxPendingBytes ?? 8 * 1024 * 1024)) {
      w.dropped++;
      return;
    }
    w.pending.push(clean + '\n');
    w.pendingBytes += clean.length + 1;
    this.timer ??= setInterval(() => {
      if (!this.busy) void this.flush();
    }, this.opts.flushIntervalMs ?? 250).unref();
  }

  /** Lines appended after this call, as they are appended. Returns the unsubscribe. */
  follow(name: string, onLine: (line: string) => void): () => void {
    let set = this.followers.get(name);
    if (!set) this.followers.set(name, (set = new Set()));
    set.add(onLine);
    return () => void set.delete(onLine);
  }

  /** Names with a log: appended to here, or found in the logs dir. */
  names(): string[] {
    const names = new Set(this.writers.keys());
    let files: string[] = [];
    try {
      files = fsSync.readdirSync(this.logsDir);
    } catch {
      // no logs dir yet: nothing recorded
    }
    const known = new Set([...this.writers.values()].map((w) => path.basename(w.file)));
    for (const f of files) if (f.endsWith('.log') && !known.has(f)) names.add(decodeName(f.slice(0, -4)));
    return [...names].sort();
  }

  /** The last n lines of name, across the rotated and the current file. */
  async tail(name: string, n: number): Promise<string[]> {
    if (n <= 0) return [];
    await this.flush();
    return readTail(this.writers.get(name)?.file ?? this.fileFor(name), this.keep, n);
  }

  /** Writes everything buffered so far. */
  flush(): Promise<void> {
    this.chain = this.chain.then(() => this.flushAll());
    return this.chain;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    this.followers.clear();
    await this.flush();
    for (const w of this.writers.values()) {
      await w.fh?.close().catch(() => {});
      w.fh = undefined;
    }
  }

  private writer(name: string): Writer {
    let w = this.writers.get(name);
    if (!w)
      this.writers.set(name, (w = { file: this.fileFor(name), pending: [], pendingBytes: 0, dropped: 0, size: 0 }));
    return w;
  }

  private fileFor(name: string): string {
    return logFilePath(this.logsDir, name);
  }

  private async flushAll(): Promise<void> {
    this.busy = true;
    try {
      for (const [name, w] of this.writers) {
        if (!w.pending.length && !w.dropped) continue;
        const lines = w.pending;
        if (w.dropped) lines.push(`[sshcluster: ${w.dropped} lines dropped, the log file did not keep up]\n`);
        w.pending = [];
        w.pendingBytes = 0;
        w.dropped = 0;
        await this.write(w, lines).catch(async (err: unknown) => {
          await w.fh?.close().catch(() => {});
          w.fh = undefined;
          this.opts.onError?.(err, name);
        });
      }
    } finally {
      this.busy = false;
    }
  }

  private async write(w: Writer, lines: string[]): Promise<void> {
    if (!w.fh) {
      w.fh = await fs.open(w.file, 'a', 0o600);
      w.size = (await w.fh.stat()).size;
    }
    let batch: string[] = [];
    let bytes = 0;
    for (const line of lines) {
      const n = Buffer.byteLength(line);
      if (w.size + bytes + n > this.maxBytes && w.size + bytes > 0) {
        await w.fh.write(batch.join(''));
        await this.rotate(w);
        batch = [];
        bytes = 0;
      }
      batch.push(line);
      bytes += n;
    }
    if (batch.length) await w.fh.write(batch.join(''));
    w.size += bytes;
  }

  private async rotate(w: Writer): Promise<void> {
    await w.fh?.close();
    for (let i = this.keep - 1; i >= 1; i--) await renameIfExists(`${w.file}.${i}`, `${w.file}.${i + 1}`);
    if (this.keep > 0) await fs.rename(w.file, `${w.file}.1`);
    else await fs.rm(w.file, { force: true });
    w.fh = await fs.open(w.file, 'a', 0o600);
    w.size = 0;
  }
}
