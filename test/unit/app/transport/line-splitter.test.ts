import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Ring, splitLines } from '../../../../src/app/transport/line-splitter.js';

describe('splitLines', () => {
  it('splits chunks into lines across chunk boundaries and strips CR', async () => {
    const s = new PassThrough();
    const lines: string[] = [];
    splitLines(s, (l) => lines.push(l));
    s.write('al');
    s.write('pha\r\nbeta\ngam');
    s.end('ma');
    await new Promise((r) => s.on('end', r));
    expect(lines).toEqual(['alpha', 'beta', 'gamma']);
  });
  it('cuts a line that never ends instead of buffering it without bound', async () => {
    const s = new PassThrough();
    const lines: string[] = [];
    splitLines(s, (l) => lines.push(l));
    s.end('x'.repeat(40_000));
    await new Promise((r) => s.on('end', r));
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines[0]!.length).toBeLessThan(20_000);
    expect(lines.join('').replace(/ …\[cut\]|\[cut\]… /g, '').length).toBe(40_000);
  });
  it('marks both sides of a cut: the rest of the line is not shown as a whole line', async () => {
    const s = new PassThrough();
    const lines: string[] = [];
    splitLines(s, (l) => lines.push(l));
    s.write('x'.repeat(40_000));
    s.end('\nnext\n');
    await new Promise((r) => s.on('end', r));
    expect(lines).toEqual([
      `${'x'.repeat(16_384)} …[cut]`,
      `[cut]… ${'x'.repeat(16_384)} …[cut]`,
      `[cut]… ${'x'.repeat(7_232)}`,
      'next',
    ]);
  });
});

describe('splitLines with an admit filter', () => {
  it('offers every raw line to admit first and decodes only the admitted ones', async () => {
    const s = new PassThrough();
    const lines: string[] = [];
    const offered: number[] = [];
    splitLines(
      s,
      (l) => lines.push(l),
      (buf, start, end) => (offered.push(end - start), !buf.toString('utf8', start, end).startsWith('drop')),
    );
    s.write('keep 1\ndrop 1\nkeep');
    s.end(' 2\ndrop 2');
    await new Promise((r) => s.on('end', r));
    expect(lines).toEqual(['keep 1', 'keep 2']);
    expect(offered).toEqual([6, 6, 6, 6]);
  });
  it('cuts a long line between characters, not inside one', async () => {
    const s = new PassThrough();
    const lines: string[] = [];
    splitLines(s, (l) => lines.push(l));
    s.end('é'.repeat(20_000));
    await new Promise((r) => s.on('end', r));
    expect(lines.join('').replace(/ …\[cut\]|\[cut\]… /g, '')).toBe('é'.repeat(20_000));
  });
});

describe('Ring', () => {
  it('keeps only the last N items', () => {
    const r = new Ring<number>(3);
    for (let i = 0; i < 10; i++) r.push(i);
    expect(r.toArray()).toEqual([7, 8, 9]);
  });
});
