// adaptive.groups in the host file: shape, defaults, and errors at file:line:col.
import { describe, expect, it } from 'vitest';
import { parseHostFile } from '../../../src/config/load.js';
import { configErrorOf, makeCtx } from '../fixtures/config/ctx.js';

const HOSTS = `hosts:
  - head
  - cpu[1-3]
  - {host: gpu1, worker_options: {resources: {GPU: 2}}, max_workers: 2}
  - {host: gpu2, worker_options: {resources: {GPU: 2}}, max_workers: 2}
  - {host: bigmem, worker_options: {resources: {MEMORY: 70e9}}}
`;
const parse = (adaptive: string) => parseHostFile(`${HOSTS}adaptive:\n${adaptive}`, 'hosts.yaml', makeCtx());
const fail = (adaptive: string) => configErrorOf(() => parse(adaptive));

describe('adaptive.groups', () => {
  it('resolves host patterns to worker hosts; maximum defaults to the group slots, minimum to 0', () => {
    const a = parse(
      '  maximum: 6\n  groups:\n    gpu: {hosts: "gpu*", maximum: 3}\n    big: {hosts: [bigmem, "cpu[1-2]"], minimum: 1}\n',
    ).adaptive!;
    expect(a.groups).toEqual([
      { name: 'gpu', hosts: ['gpu1', 'gpu2'], minimum: 0, maximum: 3 },
      { name: 'big', hosts: ['cpu1', 'cpu2', 'bigmem'], minimum: 1, maximum: 3 },
    ]);
    expect([a.minimum, a.maximum]).toEqual([0, 6]);
  });

  it('is absent when not written, and an empty mapping means no groups', () => {
    expect(parse('  maximum: 4\n').adaptive!.groups).toBeUndefined();
    expect(parse('  groups: {}\n').adaptive!.groups).toBeUndefined();
  });

  it('refuses a pattern that matches no worker host, at the pattern, listing the hosts', () => {
    const err = fail('  groups:\n    gpu: {hosts: "gpu-*"}\n');
    expect(err.message).toBe('hosts.yaml:9:18 adaptive.groups.gpu.hosts: "gpu-*" matches no worker host');
    expect(err.hint).toBe('the worker hosts are: cpu1, cpu2, cpu3, gpu1, gpu2, bigmem');
    expect(err.exitCode).toBe(2);
  });

  it('says when the pattern names only the scheduler host', () => {
    expect(fail('  groups:\n    h: {hosts: head}\n').message).toMatch(
      /"head" matches no worker host \(head runs only the scheduler\)$/,
    );
  });

  it('refuses a minimum above the group slots or the cluster maximum, and above its own maximum', () => {
    expect(fail('  groups:\n    gpu: {hosts: "gpu*", minimum: 5}\n').message).toBe(
      "hosts.yaml:9:35 adaptive.groups.gpu.minimum: expected at most 4, the worker slots of this group's hosts (sum of max_workers)",
    );
    expect(fail('  maximum: 2\n  groups:\n    gpu: {hosts: "gpu*", minimum: 3}\n').message).toBe(
      "hosts.yaml:10:35 adaptive.groups.gpu.minimum: expected at most 2, the cluster's adaptive maximum",
    );
    expect(fail('  groups:\n    gpu: {hosts: "gpu*", minimum: 2, maximum: 1}\n').message).toBe(
      'hosts.yaml:9:47 adaptive.groups.gpu.maximum: expected a value >= minimum (2)',
    );
  });

  it('checks keys, names and pattern syntax', () => {
    const unknown = fail('  groups:\n    gpu: {hosts: "gpu*", maximun: 2}\n');
    expect(unknown.message).toBe('hosts.yaml:9:26 adaptive.groups.gpu.maximun: unknown key "maximun"');
    expect(unknown.hint).toBe('did you mean "maximum"?');
    expect(fail('  groups:\n    gpu: {maximum: 2}\n').message).toBe(
      'hosts.yaml:9:10 adaptive.groups.gpu: missing "hosts": expected {hosts: PATTERN, minimum: N, maximum: N}',
    );
    expect(fail('  groups:\n    "g p u": {hosts: gpu1}\n').message).toMatch(
      /^hosts\.yaml:9:5 adaptive\.groups\.g p u: expected a group name/,
    );
    expect(fail('  groups:\n    gpu: {hosts: "gpu[1-"}\n').message).toBe(
      'hosts.yaml:9:18 adaptive.groups.gpu.hosts: unclosed "[" in "gpu[1-"',
    );
    expect(fail('  groups:\n    gpu: {hosts: gpu1, minimum: -1}\n').message).toBe(
      'hosts.yaml:9:33 adaptive.groups.gpu.minimum: expected a whole number >= 0, got -1',
    );
  });

  it('hints that a top-level "groups" belongs under adaptive', () => {
    const err = configErrorOf(() => parseHostFile(`${HOSTS}groups: {}\n`, 'hosts.yaml', makeCtx()));
    expect(err.hint).toBe('"groups" belongs under adaptive');
  });

  it("parses the guide's example (Dask's Worker Resources page: two GPU boxes, one big-memory box)", () => {
    const yaml =
      'hosts:\n  - head\n  - {host: "gpu[1-2]", worker_options: {resources: {GPU: 2}}}\n' +
      '  - {host: bigmem, worker_options: {resources: {MEMORY: 100e9}}}\nadaptive:\n  maximum: 3\n  groups:\n    gpu: {hosts: "gpu*", maximum: 2}\n';
    const spec = parseHostFile(yaml, 'hosts.yaml', makeCtx());
    expect(spec.workerHosts.map((h) => [h.name, h.workerOptions.resources])).toEqual([
      ['gpu1', { GPU: 2 }],
      ['gpu2', { GPU: 2 }],
      ['bigmem', { MEMORY: 100e9 }],
    ]);
    expect(spec.adaptive!.groups).toEqual([{ name: 'gpu', hosts: ['gpu1', 'gpu2'], minimum: 0, maximum: 2 }]);
  });
});
