import { describe, expect, it } from 'vitest';
import { parseBytes, parseDuration } from '../../../src/config/durations.js';

describe('parseDuration', () => {
  it.each([
    ['10s', 10_000],
    ['500ms', 500],
    ['2m', 120_000],
    ['1.5s', 1500],
    ['1h', 3_600_000],
    ['10 s', 10_000],
    ['30', 30_000],
    ['2 minutes', 120_000],
    ['250us', 0.25],
  ] as const)('%s → %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it('reads a number as seconds, like Dask', () => {
    expect(parseDuration(60)).toBe(60_000);
    expect(parseDuration(0.5)).toBe(500);
  });

  it.each(['', 'soon', '10 parsecs', '-1s', 's10'])('refuses %j', (text) => {
    expect(() => parseDuration(text)).toThrow(/expected a duration/);
  });

  it('refuses negative numbers', () => {
    expect(() => parseDuration(-1)).toThrow(/expected a duration/);
  });
});

describe('parseBytes', () => {
  it.each([
    ['100 GiB', 100 * 2 ** 30],
    ['4GB', 4e9],
    ['512MiB', 512 * 2 ** 20],
    ['5kB', 5000],
    ['5KiB', 5120],
    ['1e3', 1000],
    ['2 TB', 2e12],
    ['1.5 KiB', 1536],
    ['GiB', 2 ** 30],
    ['123', 123],
  ] as const)('%s → %d bytes', (text, n) => {
    expect(parseBytes(text)).toBe(n);
  });

  it('takes numbers as bytes, floored', () => {
    expect(parseBytes(1024.7)).toBe(1024);
  });

  it.each(['lots', '4 GiBs', '-4GB', ''])('refuses %j', (text) => {
    expect(() => parseBytes(text)).toThrow(/expected a size/);
  });
});
