import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fileBase } from '../../../src/control/log-files.js';
import { LogStore } from '../../../src/control/log-store.js';

let tmp: string;
const stores: LogStore[] = [];
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sshc-logs-'));
});
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(stores.splice(0).map((s) => s.close()));
  fs.rmSync(tmp, { recursive: true, force: true });
});

function store(opts: ConstructorParameters<typeof LogStore>[1] = {}): LogStore {
  const s = new LogStore(tmp, { flushIntervalMs: 10_000, ...opts });
  stores.push(s);
  return s;
}

// 10 bytes with the newline, so sizes are easy to count.
const line = (i: number) => `line ${String(i).padStart(4, '0')}`;

describe('log store', () => {
  it('writes lines in batches, to name.log, 0600', async () => {
    const s = store();
    for (let i = 0; i < 5; i++) s.append('10.0.0.3-0', line(i));
    expect(fs.existsSync(path.join(tmp, '10.0.0.3-0.log'))).toBe(false); // buffered, not yet written
    await s.flush();
    const file = path.join(tmp, '10.0.0.3-0.log');
    expect(fs.readFileSync(file, 'utf8')).toBe([0, 1, 2, 3, 4].map((i) => line(i) + '\n').join(''));
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it('flushes on its interval and on close', async () => {
    // The interval on a fake clock; the write it starts is real I/O, waited for by event.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const s = store({ flushIntervalMs: 20 });
    s.append('scheduler', 'hello');
    const written = () => fs.existsSync(path.join(tmp, 'scheduler.log'));
    await vi.advanceTimersByTimeAsync(19);
    expect(written()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const file = path.join(tmp, 'scheduler.log');
    for (
      const until = Date.now() + 5_000;
      !(written() && fs.readFileSync(file, 'utf8') === 'hello\n') && Date.now() < until;
    )
      await new Promise((r) => setImmediate(r));
    expect(fs.readFileSync(path.join(tmp, 'scheduler.log'), 'utf8')).toBe('hello\n');
    s.append('scheduler', 'bye');
    await s.close();
    expect(fs.readFileSync(path.join(tmp, 'scheduler.log'), 'utf8')).toBe('hello\nbye\n');
    s.append('scheduler', 'after close'); // ignored, does not throw
  });

  it('rotates at maxBytes, keeps one rotated file, and tails across the rotation', async () => {
    const s = store({ maxBytes: 100 });
    for (let i = 0; i < 25; i++) s.append('w', line(i));
    await s.flush();
    for (let i = 25; i < 27; i++) s.append('w', line(i));
    const cur = path.join(tmp, 'w.log');
    expect(await s.tail('w', 8)).toEqual([19, 20, 21, 22, 23, 24, 25, 26].map(line));
    expect(fs.readFileSync(`${cur}.1`, 'utf8')).toBe(
      [10, 11, 12, 13, 14, 15, 16, 17, 18, 19].map((i) => line(i) + '\n').join(''),
    );
    expect(fs.readFileSync(cur, 'utf8').split('\n')).toHaveLength(8);
    expect(fs.existsSync(`${cur}.2`)).toBe(false);
    expect(await s.tail('w', 1000)).toEqual(Array.from({ length: 17 }, (_, i) => line(i + 10)));
    expect(await s.tail('w', 0)).toEqual([]);
    expect(await s.tail('nobody', 5)).toEqual([]);
  });

  it('keeps as many rotated files as asked and continues an existing file', async () => {
    const first = store({ maxBytes: 50, keep: 2 });
    for (let i = 0; i < 3; i++) first.append('w', line(i));
    await first.close();
    const s = store({ maxBytes: 50, keep: 2 });
    for (let i = 3; i < 18; i++) s.append('w', line(i));
    await s.flush();
    const read = (f: string) => fs.readFileSync(path.join(tmp, f), 'utf8').trim().split('\n');
    expect(read('w.log.2')).toEqual([5, 6, 7, 8, 9].map(line));
    expect(read('w.log.1')).toEqual([10, 11, 12, 13, 14].map(line));
    expect(read('w.log')).toEqual([15, 16, 17].map(line));
    expect(await s.tail('w', 4)).toEqual([14, 15, 16, 17].map(line));
  });

  it('follows lines appended after the call until unsubscribed', async () => {
    const s = store();
    s.append('w', 'before');
    const got: string[] = [];
    const stop = s.follow('w', (l) => got.push(l));
    s.append('w', 'one');
    s.append('other', 'not mine');
    s.append('w', 'two\nparts');
    stop();
    s.append('w', 'after');
    expect(got).toEqual(['one', 'two parts']);
  });

  it('names logs it holds and logs found on disk', async () => {
    fs.writeFileSync(path.join(tmp, 'old-0.log'), 'x\n');
    fs.writeFileSync(path.join(tmp, 'old-0.log.1'), 'x\n');
    fs.writeFileSync(path.join(tmp, 'gpu1%3A0.log'), 'x\n');
    const s = store();
    s.append('scheduler', 'a');
    s.append('../etc/passwd', 'a');
    await s.flush();
    expect(s.names()).toEqual(['../etc/passwd', 'gpu1:0', 'old-0', 'scheduler']);
    expect(new LogStore(path.join(tmp, 'missing')).names()).toEqual([]);
  });

  it('makes safe file names', () => {
    expect(fileBase('10.0.0.3-0')).toBe('10.0.0.3-0');
    expect(fileBase('scheduler')).toBe('scheduler');
    expect(fileBase('../x')).toBe('%2E.%2Fx');
    expect(fileBase('.hidden')).toBe('%2Ehidden');
    expect(fileBase('a b/é')).toBe('a%20b%2F%C3%A9');
    expect(fileBase('w'.repeat(300)).length).toBeLessThanOrEqual(200);
  });

  it('bounds its buffer when the disk does not keep up, and says how much it dropped', async () => {
    const s = store({ maxPendingBytes: 100 });
    for (let i = 0; i < 50; i++) s.append('w', line(i));
    expect(await s.tail('w', 100)).toEqual([
      ...Array.from({ length: 11 }, (_, i) => line(i)),
      '[sshcluster: 39 lines dropped, the log file did not keep up]',
    ]);
  });

  it('reports a failed write and keeps going', async () => {
    const onError = vi.fn();
    const s = store({ onError });
    fs.mkdirSync(path.join(tmp, 'w.log')); // cannot be opened for appending
    s.append('w', 'lost');
    s.append('ok', 'kept');
    await s.flush();
    expect(onError).toHaveBeenCalledWith(expect.objectContaining({ code: 'EISDIR' }), 'w');
    expect(await s.tail('ok', 5)).toEqual(['kept']);
  });
});
