// listTaggedProcesses reads /proc/<pid>/stat lines; comm may hold spaces and ")".
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseStat } from '../../../../src/app/transport/host-runner.js';

describe('parseStat', () => {
  it('reads pid, ppid and process group, whatever the command name holds', () => {
    expect(parseStat('4242 (python3) S 17 4242 4242 0 -1 4194560')).toEqual({ pid: 4242, ppid: 17, pgid: 4242 });
    expect(parseStat('77 (a b) (c)) R 1 70 70 0')).toEqual({ pid: 77, ppid: 1, pgid: 70 });
  });

  it('matches this very process', () => {
    expect(parseStat(readFileSync('/proc/self/stat', 'utf8').trim())).toMatchObject({
      pid: process.pid,
      ppid: process.ppid,
    });
  });

  it('skips what is not a stat line', () => {
    expect(parseStat('')).toBeUndefined();
    expect(parseStat('cat: /proc/1/stat: No such file')).toBeUndefined();
  });
});
