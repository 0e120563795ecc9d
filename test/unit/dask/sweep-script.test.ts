// The last look at a host as one shell script: what it runs for each escalation, and
// how its output is read back.
import { describe, expect, it } from 'vitest';
import { parseSweep, sweepLines } from '../../../src/dask/sweep-script.js';

describe('sweepLines', () => {
  it('sends TERM and waits out the grace only when there is one, then KILL and the verify', () => {
    const graced = sweepLines('SCAN', { graceMs: 1_000, verifyMs: 300 }).join('\n');
    expect(graced).toContain('kill -TERM');
    expect(graced).toContain('__sshc_wait 10');
    expect(graced).toContain('__sshc_wait 3');
    const atOnce = sweepLines('SCAN', { graceMs: 0, verifyMs: 300 }).join('\n');
    expect(atOnce).not.toContain('kill -TERM');
    expect(atOnce).toContain('kill -KILL');
  });
});

describe('parseSweep', () => {
  it('splits the found, forced and left stat lines, ignoring anything else', () => {
    const out = ['found 12 (sleep) S 1 12', 'found 13 (a b) S 1 12', 'forced 13 (a b) S 1 12', 'noise', ''].join('\n');
    expect(parseSweep(out)).toEqual({
      found: ['12 (sleep) S 1 12', '13 (a b) S 1 12'],
      forced: ['13 (a b) S 1 12'],
      left: [],
    });
  });
});
