import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadHostFile } from '../../../src/config/load.js';
import { HOME } from '../fixtures/config/ctx.js';

const EXAMPLE = fileURLToPath(new URL('../../../config.example.yaml', import.meta.url));

describe('config.example.yaml', () => {
  const spec = loadHostFile(EXAMPLE, {
    // Its identity_file must exist; nothing else does (no ~/.ssh/config).
    readFile: (p) =>
      p === `${HOME}/.ssh/id_ed25519` ? 'a key' : readFileSync(p === EXAMPLE ? p : '/nonexistent/on/purpose', 'utf8'),
    env: { SSH_AUTH_SOCK: '/tmp/agent' },
    homedir: HOME,
    cwd: '/',
    username: 'me',
  });

  it('loads cleanly with every key', () => {
    expect(spec.name).toBe('lab');
    expect(spec.schedulerHost.name).toBe('node0');
    expect(spec.security).toEqual({ kind: 'tls' });
    expect(spec.workerHosts.map((h) => h.name)).toEqual([
      'node0',
      'gpu1',
      'gpu2',
      'node01',
      'node02',
      'node03',
      'node04',
      'cpu1',
      'cpu2',
      'cpu3',
      'cpu7',
    ]);
  });

  it('applies its overrides', () => {
    const gpu1 = spec.workerHosts[1]!;
    expect(gpu1.connect).toMatchObject({ username: 'bob', port: 2222, agent: '/tmp/agent' });
    expect(gpu1.connect.proxyJump.map((h) => h.alias)).toEqual(['bastion']);
    const gpu2 = spec.workerHosts[2]!;
    expect(gpu2.connect).toMatchObject({ username: 'carol', port: 22, proxyJump: [] });
    expect(gpu2.workerOptions).toMatchObject({ nthreads: 4, nworkers: 1, resources: { GPU: 2 } });
    expect(gpu2.env).toEqual({ OMP_NUM_THREADS: '1', CUDA_VISIBLE_DEVICES: '0,1' });
    expect(gpu2.maxWorkers).toBe(2);
    expect(spec.workerHosts[7]!.workerOptions.nworkers).toBe(2);
    expect(spec.adaptive).toEqual({
      minimum: 0,
      maximum: 10,
      intervalMs: 1000,
      waitCount: 3,
      targetDurationMs: 5000,
      minimumCores: 0,
      maximumCores: 64,
      minimumMemory: 0,
      maximumMemory: 256 * 2 ** 30,
      groups: [{ name: 'gpu', hosts: ['gpu1', 'gpu2'], minimum: 0, maximum: 2 }],
    });
  });
});
