// A host file with several mistakes says all of them at once (up to 20, then how many
// more), each with its file:line:column and key path, still exit 2: fixing one only to
// meet the next was a round trip per mistake.
import { describe, expect, it } from 'vitest';
import { parseHostFile } from '../../../src/config/load.js';
import { configErrorOf, makeCtx } from '../fixtures/config/ctx.js';

const fail = (yaml: string) => configErrorOf(() => parseHostFile(yaml, 'hosts.yaml', makeCtx()));

describe('a host file with several errors', () => {
  it('reports each, in the order written, with its position, path and hint', () => {
    const err = fail(
      [
        'hosts:',
        '  - a',
        '  - host: b',
        '    connect_options: {port: twenty}',
        'workr_options:',
        '  nthreads: 2',
        'adaptive: {minimum: -1}',
        '',
      ].join('\n'),
    );
    expect(err.exitCode).toBe(2);
    expect(err.message.split('\n')).toEqual([
      'hosts.yaml: 3 errors:',
      '  hosts.yaml:4:29 hosts[1].connect_options.port: expected a whole number from 1 to 65535, got "twenty"',
      '  hosts.yaml:5:1 workr_options: unknown key "workr_options" (did you mean "worker_options"?)',
      '  hosts.yaml:7:21 adaptive.minimum: expected a whole number >= 0, got -1',
    ]);
    expect(err.position).toEqual({ file: 'hosts.yaml' });
  });

  it('one error is said as before, its hint apart', () => {
    const err = fail('hosts: [a, b]\nworkr_options:\n  nthreads: 2\n');
    expect(err.message).toBe('hosts.yaml:2:1 workr_options: unknown key "workr_options"');
    expect(err.hint).toBe('did you mean "worker_options"?');
  });

  it('says a misspelt key once, not also the key its mapping then lacks; two bad host entries both', () => {
    const err = fail('hots: [a, b]\n');
    expect(err.message).toBe('hosts.yaml:1:1 hots: unknown key "hots"');
    const hosts = fail('hosts:\n  - a\n  - {hots: b}\n  - {host: c, max_workers: 0}\n');
    expect(hosts.message.split('\n')).toEqual([
      'hosts.yaml: 2 errors:',
      '  hosts.yaml:3:6 hosts[1].hots: unknown key "hots" (did you mean "host"?)',
      '  hosts.yaml:4:28 hosts[2].max_workers: expected a whole number >= 1, got 0',
    ]);
  });

  it('lists at most 20, then how many more', () => {
    const env = Array.from({ length: 25 }, (_, i) => `  ${i}bad: x`).join('\n');
    const err = fail(`hosts: [a, b]\nenv:\n${env}\n`);
    const lines = err.message.split('\n');
    expect(lines[0]).toBe('hosts.yaml: 25 errors:');
    expect(lines.slice(1, 21).every((l) => /^ {2}hosts\.yaml:\d+:3 env\.\d+bad: /.test(l))).toBe(true);
    expect(lines.slice(21)).toEqual(['  and 5 more']);
  });
});
