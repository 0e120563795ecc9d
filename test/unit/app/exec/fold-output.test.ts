import { describe, expect, it } from 'vitest';
import { compressHosts } from '../../../../src/app/hosts/compress-hosts.js';
import { foldResults, renderFolds, worstCode, type HostResult } from '../../../../src/app/exec/fold-output.js';

const ok = (host: string, output = ''): HostResult => ({
  host,
  status: { kind: 'exit', code: 0 },
  output,
  truncated: false,
});

describe('compressHosts', () => {
  it('folds numbered names into pdsh ranges, keeping padding', () => {
    expect(compressHosts(['node01', 'node02', 'node03', 'node07'])).toBe('node[01-03,07]');
    expect(compressHosts(['10.0.0.10', '10.0.0.11', '10.0.0.12'])).toBe('10.0.0.[10-12]');
    expect(compressHosts(['n9', 'n10', 'n11'])).toBe('n[9-11]');
    expect(compressHosts(['n09', 'n010'])).toBe('n[09,010]');
  });
  it('leaves single and unnumbered names alone', () => {
    expect(compressHosts(['gpu1'])).toBe('gpu1');
    expect(compressHosts(['alpha', 'beta', 'n1', 'n2'])).toBe('alpha,beta,n[1-2]');
  });
});

describe('foldResults / renderFolds', () => {
  it('prints identical output once under the folded host list', () => {
    const results = [ok('n1', 'Python 3.11\n'), ok('n2', 'Python 3.11\n'), ok('n3', 'Python 3.9\n')];
    const folds = foldResults(results);
    expect(folds.map((f) => f.hosts)).toEqual([['n1', 'n2'], ['n3']]);
    expect(renderFolds(folds, 3)).toBe('== n[1-2] (2) ==\nPython 3.11\n== n3 (1) ==\nPython 3.9\n3 host(s): 3 ok\n');
  });
  it('keeps hosts with the same output but another exit apart, and says why', () => {
    const bad: HostResult = { host: 'n2', status: { kind: 'exit', code: 3 }, output: 'x\n', truncated: false };
    const text = renderFolds(foldResults([ok('n1', 'x\n'), bad]), 2);
    expect(text).toContain('== n2 (1): exit 3 ==\nx\n');
    expect(text).toContain('2 host(s): 1 ok, 1 exit 3');
  });
  it('is quiet for silent successes and reports failures with their hint', () => {
    const down: HostResult = {
      host: 'n9',
      status: {
        kind: 'failed',
        reason: 'unreachable',
        message: 'cannot reach n9:22 (EHOSTUNREACH)',
        hint: 'check the host name',
        code: 255,
      },
      output: '',
      truncated: false,
    };
    const text = renderFolds(foldResults([ok('n1'), ok('n2'), down]), 3);
    expect(text).toBe(
      '== n9 (1): unreachable ==\ncannot reach n9:22 (EHOSTUNREACH)\n  hint: check the host name\n3 host(s): 2 ok, 1 unreachable\n',
    );
  });
});

describe('worstCode', () => {
  it('is the highest code of the hosts', () => {
    const t: HostResult = {
      host: 'n3',
      status: { kind: 'timeout', afterS: 5, code: 124 },
      output: '',
      truncated: false,
    };
    expect(worstCode([ok('n1'), ok('n2')])).toBe(0);
    expect(worstCode([ok('n1'), { ...ok('n2'), status: { kind: 'exit', code: 2 } }, t])).toBe(124);
  });
});
