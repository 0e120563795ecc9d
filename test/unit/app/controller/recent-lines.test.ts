// The controller's newest process lines, handed to `attach` with its subscription.
import { describe, expect, it } from 'vitest';
import { RecentLines, type ProcessLine } from '../../../../src/app/controller/recent-lines.js';

const line = (i: number, text = `line ${i}`): ProcessLine => ({
  kind: 'process-line',
  host: 'h',
  name: 'h-0',
  stream: 'stderr',
  line: text,
});

describe('RecentLines', () => {
  it('keeps the newest lines, oldest first, up to its line bound', () => {
    const r = new RecentLines(3, 1_000);
    for (let i = 0; i < 5; i++) r.push(line(i));
    expect(r.list().map((e) => e.line)).toEqual(['line 2', 'line 3', 'line 4']);
  });

  it('drops the oldest while over its byte bound, but always keeps the newest line', () => {
    const r = new RecentLines(100, 10);
    r.push(line(0, 'aaaa'));
    r.push(line(1, 'bbbb'));
    r.push(line(2, 'cccc'));
    expect(r.list().map((e) => e.line)).toEqual(['bbbb', 'cccc']);
    r.push(line(3, 'x'.repeat(50)));
    expect(r.list().map((e) => e.line)).toEqual(['x'.repeat(50)]);
  });

  it('hands out a copy: later lines do not change a list already given', () => {
    const r = new RecentLines();
    r.push(line(0));
    const given = r.list();
    r.push(line(1));
    expect(given).toHaveLength(1);
  });
});
