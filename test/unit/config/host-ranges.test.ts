import { describe, expect, it } from 'vitest';
import { parseHostAddress, parseJumpList } from '../../../src/config/hosts/host-address.js';
import { expandHostPattern } from '../../../src/config/hosts/host-ranges.js';

describe('expandHostPattern', () => {
  it('keeps a plain name as is', () => {
    expect(expandHostPattern('node1')).toEqual(['node1']);
    expect(expandHostPattern('10.0.0.5')).toEqual(['10.0.0.5']);
  });

  it('expands a zero-padded range', () => {
    expect(expandHostPattern('node[01-04]')).toEqual(['node01', 'node02', 'node03', 'node04']);
    expect(expandHostPattern('n[08-11]')).toEqual(['n08', 'n09', 'n10', 'n11']);
  });

  it('does not pad without a leading zero', () => {
    expect(expandHostPattern('node[8-10]')).toEqual(['node8', 'node9', 'node10']);
  });

  it('expands lists of ranges and single numbers', () => {
    expect(expandHostPattern('node[1-3,7]')).toEqual(['node1', 'node2', 'node3', 'node7']);
    expect(expandHostPattern('node[5]')).toEqual(['node5']);
  });

  it('expands several groups in order, like pdsh', () => {
    expect(expandHostPattern('r[1-2]n[1-2]')).toEqual(['r1n1', 'r1n2', 'r2n1', 'r2n2']);
    expect(expandHostPattern('rack[1-2].node[1-2].lab')).toEqual([
      'rack1.node1.lab',
      'rack1.node2.lab',
      'rack2.node1.lab',
      'rack2.node2.lab',
    ]);
  });

  it.each([
    ['node[5-1]', /reversed range "5-1"/],
    ['node[1-3', /unclosed "\["/],
    ['node1-3]', /unexpected "\]"/],
    ['node[]', /empty range/],
    ['node[a-c]', /bad range "a-c"/],
    ['node[1-2-3]', /bad range/],
    ['node[[1-2]]', /nested/],
    ['n[0-99999]', /more than 10000 hosts/],
    ['r[1-200]n[1-200]', /more than 10000 hosts/],
  ])('refuses %s', (pattern, message) => {
    expect(() => expandHostPattern(pattern)).toThrow(message);
  });
});

describe('parseHostAddress', () => {
  it.each([
    ['node1', { host: 'node1' }],
    ['bob@node1', { host: 'node1', user: 'bob' }],
    ['bob@node1:2222', { host: 'node1', user: 'bob', port: 2222 }],
    ['node[01-04]:2200', { host: 'node[01-04]', port: 2200 }],
    ['[::1]:2222', { host: '::1', port: 2222 }],
    ['fe80::1', { host: 'fe80::1' }],
    ['ssh://bob@jump:22', { host: 'jump', user: 'bob', port: 22 }],
  ])('%s', (text, expected) => {
    expect(parseHostAddress(text)).toEqual(expected);
  });

  it.each(['node1:0', 'node1:99999', 'node1:ssh', '@node1', 'a b', ''])('refuses %j', (text) => {
    expect(() => parseHostAddress(text)).toThrow();
  });

  it('splits a ProxyJump chain and understands none', () => {
    expect(parseJumpList('a,bob@b:2222')).toEqual([{ host: 'a' }, { host: 'b', user: 'bob', port: 2222 }]);
    expect(parseJumpList('none')).toEqual([]);
  });
});
