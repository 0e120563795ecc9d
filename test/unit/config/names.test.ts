// Names and values checked at the edge (issue 12, finding 8): resource names that Dask's
// `--resources` parser would split or choke on, non-finite amounts, and --name with the
// host file's `name:` rule.
import { describe, expect, it } from 'vitest';
import { clusterName } from '../../../src/cli/options.js';
import { parseHostFile } from '../../../src/config/load.js';
import { configErrorOf, makeCtx } from '../fixtures/config/ctx.js';

const fail = (yaml: string) => configErrorOf(() => parseHostFile(yaml, 'hosts.yaml', makeCtx()));
const load = (yaml: string) => parseHostFile(yaml, 'hosts.yaml', makeCtx());

describe('resource names and amounts', () => {
  it.each([
    ['"GPU$(touch /tmp/x)"', 30],
    ['"GPU 2"', 30],
    ['"GPU=2"', 30],
    ['"A,B"', 30],
    ['"2GPU"', 30],
    ['"\\e]0;x\\a"', 30],
  ])('refuses %s at its key with file:line:col', (key, col) => {
    const err = fail(`hosts: [a, b]\nworker_options: {resources: {${key}: 1}}\n`);
    expect(err.exitCode).toBe(2);
    expect(err.message).toMatch(
      new RegExp(`^hosts\\.yaml:2:${col} worker_options\\.resources\\..*: expected a resource name of letters, digits`),
    );
  });
  it('refuses a bad name on a host entry too', () => {
    const err = fail('hosts:\n  - a\n  - {host: b, worker_options: {resources: {"G PU": 1}}}\n');
    expect(err.message).toMatch(
      /^hosts\.yaml:3:44 hosts\[1\]\.worker_options\.resources\.G PU: expected a resource name/,
    );
  });
  it('refuses amounts that are not finite numbers >= 0', () => {
    expect(fail('hosts: [a, b]\nworker_options: {resources: {GPU: .inf}}\n').message).toBe(
      'hosts.yaml:2:35 worker_options.resources.GPU: expected a number >= 0',
    );
    expect(fail('hosts: [a, b]\nworker_options: {resources: {GPU: two}}\n').message).toBe(
      'hosts.yaml:2:35 worker_options.resources.GPU: expected a number, got "two"',
    );
    expect(fail('hosts: [a, b]\nworker_options: {resources: {GPU: -1}}\n').message).toBe(
      'hosts.yaml:2:35 worker_options.resources.GPU: expected a number >= 0',
    );
  });
  it('accepts the usual names', () => {
    const spec = load(
      'hosts: [a, b]\nworker_options: {resources: {GPU: 2, MEMORY: 10e9, foo_bar.baz-1: 0.5, _x: 1}}\n',
    );
    expect(spec.workerHosts[0]!.workerOptions.resources).toEqual({ GPU: 2, MEMORY: 10e9, 'foo_bar.baz-1': 0.5, _x: 1 });
  });
});

describe('--name', () => {
  it("takes what the host file's name: takes", () => {
    expect(clusterName('lab')).toBe('lab');
    expect(clusterName('lab-2.gpu_x')).toBe('lab-2.gpu_x');
    expect(load('name: lab-2.gpu_x\nhosts: [a, b]\n').name).toBe('lab-2.gpu_x');
  });
  it.each(['a;b', 'a b', '\x1b]0;HACKED\x07', '-x', '.hidden', '', 'a/b', '..'])(
    'refuses %j like the host file does',
    (name) => {
      expect(() => clusterName(name)).toThrow('expected a name of letters, digits, ".", "_" or "-"');
      expect(fail(`name: ${JSON.stringify(name)}\nhosts: [a, b]\n`).message).toContain(
        'name: expected a name of letters, digits',
      );
    },
  );
});
