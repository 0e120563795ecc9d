// What `exec` keeps of a host's output past its bound. Before: the last 1 MiB of
// characters, cut anywhere, so the kept output began mid-line under a marker that did not
// say how much went; a stderr chunk could land inside a stdout line; with --no-fold a
// line without a newline grew without bound. Now: whole lines, the cut counted.
import { describe, expect, it } from 'vitest';
import { OutputTail } from '../../../../src/app/exec/output-tail.js';

/** `text` pushed in pieces of `size` characters, so lines arrive split across chunks. */
function pushIn(t: OutputTail, text: string, size: number, stream: 'out' | 'err' = 'out'): void {
  for (let i = 0; i < text.length; i += size) t.push(text.slice(i, i + size), stream);
}

const numbered = (n: number) =>
  Array.from({ length: n }, (_, i) => `line-${String(i + 1).padStart(6, '0')}\n`).join('');

describe('OutputTail', () => {
  it('keeps what fits as it was printed, without a marker', () => {
    const t = new OutputTail({ maxBytes: 1000 });
    pushIn(t, 'a\nbb\nccc', 2);
    t.flush();
    expect(t.text()).toBe('a\nbb\nccc');
    expect(t.truncated).toBe(false);
  });

  it('cuts at a line boundary and says how many lines and bytes went', () => {
    const t = new OutputTail({ maxBytes: 100 });
    const all = numbered(50); // 12 bytes a line, 600 in all
    pushIn(t, all, 7);
    t.flush();
    const [marker, ...rest] = t.text().split('\n');
    expect(rest.pop()).toBe('');
    expect(marker).toBe('[… first 42 lines (504 B) cut by sshcluster; the last 8 lines (96 B) follow]');
    expect(rest).toEqual(all.split('\n').slice(42, 50));
    expect(t.truncated).toBe(true);
  });

  it('cuts at a line boundary whatever the line lengths and chunk sizes', () => {
    for (const chunk of [1, 3, 64, 4096]) {
      const t = new OutputTail({ maxBytes: 1000 });
      const all = Array.from({ length: 400 }, (_, i) => `${i}:${'x'.repeat(i % 37)}\n`).join('');
      pushIn(t, all, chunk);
      t.flush();
      const [marker, ...rest] = t.text().split('\n');
      rest.pop();
      const m =
        /^\[… first (\d+) lines \(\d+\.\d KiB\) cut by sshcluster; the last (\d+) lines \((\d+) B\) follow\]$/.exec(
          marker!,
        );
      expect(m, marker).not.toBeNull();
      const [cutLines, keptLines, keptBytes] = m!.slice(1).map(Number) as [number, number, number];
      expect(rest).toEqual(all.split('\n').slice(cutLines, 400));
      expect(keptLines).toBe(rest.length);
      expect(cutLines + keptLines).toBe(400);
      expect(keptBytes).toBe(rest.join('\n').length + 1);
      expect(keptBytes).toBeLessThanOrEqual(1000);
    }
  });

  it('keeps the head of an over-long line and marks what was cut of it; the rest is no line of its own', () => {
    const seen: string[] = [];
    const t = new OutputTail({ maxLineBytes: 10, onLine: (l) => seen.push(l) });
    pushIn(t, 'abcdefghijklmnopqrstuvwxyz\nnext\n', 4);
    t.flush();
    expect(seen).toEqual(['abcdefghij …[16 more bytes of this line cut]', 'next']);
    expect(t.text()).toBe('abcdefghij …[16 more bytes of this line cut]\nnext\n');
  });

  it('cuts a long line between characters, never inside one', () => {
    const t = new OutputTail({ maxLineBytes: 10 });
    t.push('aéééééé\n', 'out');
    expect(t.text()).toBe('aéééé …[4 more bytes of this line cut]\n');
  });

  it('interleaves stdout and stderr a whole line at a time', () => {
    const t = new OutputTail();
    t.push('out-a', 'out');
    t.push('err-1\n', 'err');
    t.push('-rest\n', 'out');
    t.push('err-2', 'err');
    t.flush();
    expect(t.text()).toBe('err-1\nout-a-rest\nerr-2');
  });

  it('stays bounded for a host printing without newlines, --no-fold included', () => {
    const seen: string[] = [];
    const t = new OutputTail({ maxBytes: 64 * 1024, onLine: (l) => seen.push(l) });
    const chunk = 'y'.repeat(64 * 1024);
    for (let i = 0; i < 160; i++) t.push(chunk, 'out'); // 10 MiB, one line
    t.push('\n', 'out');
    t.flush();
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBe(`${'y'.repeat(16 * 1024)} …[${10 * 1024 * 1024 - 16 * 1024} more bytes of this line cut]`);
    expect(t.text()).toBe(`${seen[0]}\n`);
  });
});
