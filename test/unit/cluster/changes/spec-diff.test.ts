// diffSpecs: what plan prints and apply does when a running cluster's host file changes.
import { describe, expect, it } from 'vitest';
import type { ClusterSpec } from '../../../../src/config/spec.js';
import { diffSpecs, hasChanges } from '../../../../src/cluster/changes/spec-diff.js';
import { testHost, testSpec } from '../../config/spec-fixture.js';

const running = (spec: ClusterSpec) =>
  spec.workerHosts.flatMap((h) =>
    Array.from({ length: h.workerOptions.nworkers }, (_, i) => ({ name: `${h.name}-${i}`, host: h.name })),
  );

describe('diffSpecs', () => {
  it('finds nothing in the same spec, with the keys and agent socket of another shell', () => {
    const old = testSpec({ workers: ['a', 'b'] });
    const next = structuredClone(old);
    next.workerHosts[0]!.connect.agent = '/tmp/ssh-other/agent.1';
    next.workerHosts[0]!.connect.identityFiles = ['/root/.ssh/id_ed25519'];
    const d = diffSpecs(old, next, running(old), false);
    expect(hasChanges(d)).toBe(false);
  });

  it('adds a host with its nworkers and drains a removed one to 0', () => {
    const old = testSpec({ workers: ['a', 'b'] });
    const next = { ...old, workerHosts: [old.workerHosts[0]!, testHost('c', 2)] };
    const d = diffSpecs(old, next, running(old), false);
    expect(d.hostsAdded).toEqual(['c']);
    expect(d.hostsRemoved).toEqual(['b']);
    expect(d.counts).toEqual([
      { host: 'c', from: 0, to: 2 },
      { host: 'b', from: 1, to: 0 },
    ]);
    expect(d.restart).toEqual([]);
    expect(d.recreate).toEqual([]);
  });

  it("finds a kept host's changed max_workers (the room scale and adaptive have), and restarts nothing for it", () => {
    const old = testSpec({ workers: ['a', 'b'] });
    const next = structuredClone(old);
    next.workerHosts[1]!.maxWorkers = 3;
    const d = diffSpecs(old, next, running(old), false);
    expect(d.maxWorkers).toEqual([{ host: 'b', from: 1, to: 3 }]);
    expect(d.restart).toEqual([]);
    expect(d.counts).toEqual([]);
    expect(hasChanges(d)).toBe(true);
  });

  it('keeps a scaled host at its size unless its nworkers changed', () => {
    const old = testSpec({ workers: ['a', 'b'], nworkers: 3 });
    const now = [
      { name: 'a-0', host: 'a' },
      { name: 'b-0', host: 'b' },
    ];
    const next = structuredClone(old);
    next.workerHosts[1]!.workerOptions.nworkers = 2;
    const d = diffSpecs(old, next, now, false);
    expect(d.counts).toEqual([{ host: 'b', from: 1, to: 2 }]);
  });

  it('under adaptive, gives added hosts slots only and still drains removed hosts', () => {
    const old = testSpec({ workers: ['a', 'b'] });
    const next = { ...old, workerHosts: [old.workerHosts[0]!, testHost('c', 2)] };
    const d = diffSpecs(old, next, running(old), true);
    expect(d.counts).toEqual([{ host: 'b', from: 1, to: 0 }]);
  });

  it('restarts the workers of a host whose launch changed, and says what changed without env values', () => {
    const old = testSpec({ workers: ['a', 'b'], nworkers: 2 });
    const next = structuredClone(old);
    next.workerHosts[0]!.workerOptions.nthreads = 4;
    next.workerHosts[0]!.env = { TOKEN: 's3cret' };
    next.workerHosts[1]!.workerOptions.resources = { GPU: 1 };
    const d = diffSpecs(old, next, running(old), false);
    expect(d.restart).toEqual([
      { host: 'a', workers: ['a-0', 'a-1'], why: ['env TOKEN', 'worker_options.nthreads 2 → 4'] },
      { host: 'b', workers: ['b-0', 'b-1'], why: ['worker_options.resources {} → GPU=1'] },
    ]);
    expect(JSON.stringify(d)).not.toContain('s3cret');
  });

  // helper-26's trial: scaled to 1 (or adaptive at 0), a changed host with no worker was
  // "nothing to apply", and the next worker there started with the old settings.
  it('takes a changed launch on a host with no worker: nothing restarts, its next workers start with it', () => {
    const old = testSpec({ workers: ['a', 'b'] });
    const next = structuredClone(old);
    next.workerHosts[1]!.workerOptions.resources = { GPU: 1 };
    for (const adaptive of [false, true]) {
      const d = diffSpecs(old, next, [{ name: 'a-0', host: 'a' }], adaptive);
      expect(d.restart).toEqual([]);
      expect(d.updated).toEqual([{ host: 'b', why: ['worker_options.resources {} → GPU=1'] }]);
      expect(hasChanges(d)).toBe(true);
    }
  });

  it('asks for a new cluster when the scheduler, its options or the security change', () => {
    const old: ClusterSpec = { ...testSpec({ workers: ['a'] }), security: { kind: 'tls' } };
    const next: ClusterSpec = { ...structuredClone(old), security: { kind: 'none' }, schedulerHost: testHost('n1') };
    next.schedulerOptions.port = 9786;
    const d = diffSpecs(old, next, running(old), false);
    expect(d.recreate).toEqual([
      'the scheduler host changes: n0 → n1',
      'scheduler_options.port 8786 → 9786',
      'security changes (every process would need new TLS material)',
    ]);
    expect(hasChanges(d)).toBe(true);
  });

  it('reports changed adaptive settings', () => {
    const old = testSpec({ workers: ['a'] });
    const adaptive = { minimum: 0, maximum: 4, intervalMs: 1000, waitCount: 3, targetDurationMs: 5000 };
    const d = diffSpecs(old, { ...old, adaptive }, running(old), false);
    expect(d.adaptive).toEqual({ from: undefined, to: adaptive });
    expect(hasChanges(d)).toBe(true);
  });
});
