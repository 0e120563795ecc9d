import { describe, expect, it } from 'vitest';
import { listenAddress, positiveInt, seconds, timeLimit, wholeNumber } from '../../../src/cli/options.js';

describe('option parsers', () => {
  it('takes whole numbers from 0 and refuses the rest with what was given', () => {
    expect(wholeNumber('0')).toBe(0);
    expect(wholeNumber('12')).toBe(12);
    expect(() => wholeNumber('-1')).toThrow('expected a whole number ≥ 0, got "-1"');
    expect(() => wholeNumber('1.5')).toThrow('got "1.5"');
    expect(() => wholeNumber('')).toThrow();
  });
  it('takes positive whole numbers', () => {
    expect(positiveInt('3')).toBe(3);
    expect(() => positiveInt('0')).toThrow('expected a whole number ≥ 1, got "0"');
  });
  // --fanout 1e3 and --wait-count 0x10 were read as 1000 and 16, where
  // --max 1e3 was refused; and scale 100000000000000000000 said "expected a whole number".
  it('reads the same digits for every count, and says when a whole number is too large', () => {
    for (const v of ['1e3', '0x10', '0b11', '2.0', '-1', '']) {
      expect(() => positiveInt(v)).toThrow(`expected a whole number ≥ 1, got "${v}"`);
      expect(() => wholeNumber(v)).toThrow(`expected a whole number ≥ 0, got "${v}"`);
    }
    expect(() => wholeNumber('100000000000000000000')).toThrow(
      'expected a whole number from 0 to 9007199254740991, got "100000000000000000000"',
    );
    expect(() => positiveInt('100000000000000000000')).toThrow(
      'expected a whole number from 1 to 9007199254740991, got "100000000000000000000"',
    );
  });
  it('reads --metrics [HOST]:PORT, loopback without a host', () => {
    expect(listenAddress(':9464')).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(listenAddress('9464')).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(listenAddress('0.0.0.0:9464')).toEqual({ host: '0.0.0.0', port: 9464 });
    expect(listenAddress('[::1]:9464')).toEqual({ host: '::1', port: 9464 });
    expect(() => listenAddress('99999')).toThrow('expected [HOST]:PORT, e.g. :9464 or 0.0.0.0:9464, got "99999"');
  });
  // Found by the h43trial trial: `up --metrics :0` served on a port the system picked and
  // nothing said which (not up's output, status or the controller's log).
  it('refuses --metrics port 0: a scraper must know the port', () => {
    expect(() => listenAddress(':0')).toThrow('expected a port from 1 to 65535 (a scraper must know it), got ":0"');
    expect(() => listenAddress('127.0.0.1:0')).toThrow('got "127.0.0.1:0"');
  });
  it('reads durations in seconds', () => {
    expect(seconds('60s')).toBe(60);
    expect(seconds('2m')).toBe(120);
    expect(seconds('500ms')).toBe(0.5);
    expect(seconds('7')).toBe(7);
    expect(() => seconds('soon')).toThrow('expected a duration like 60s, 2m, 1h or 500ms, got "soon"');
    // What the host file takes (helper-26's trial: 1h, 2d and "5 seconds" were refused as flags).
    expect([seconds('1h'), seconds('2d'), seconds('5 seconds')]).toEqual([3600, 172800, 5]);
    expect(() => seconds('100d')).toThrow('expected at most 2147483647ms (24.8 days)');
    expect(() => seconds('-1s')).toThrow('expected a duration like');
  });
  it('refuses a duration longer than a timer can wait, as the host file does', () => {
    expect(seconds('2147483.647')).toBe(2147483.647);
    expect(() => seconds('3000000')).toThrow(
      'expected at most 2147483647ms (24.8 days), the longest a timer can wait, got "3000000"',
    );
    expect(() => seconds('35792m')).toThrow('got "35792m"');
  });
  it('takes a time limit above 0 only (--timeout, --ready-timeout)', () => {
    expect(timeLimit('500ms')).toBe(0.5);
    expect(() => timeLimit('0s')).toThrow('expected a time limit above 0, like 60s or 2m, got "0s"');
    expect(() => timeLimit('0')).toThrow('got "0"');
  });
});
