// A small ClusterSpec built in code, for tests of the cores (not of the config loader).
import type { ClusterSpec, HostSpec } from '../../../src/config/spec.js';

export function testHost(name: string, nworkers = 1): HostSpec {
  return {
    name,
    connect: {
      alias: name,
      hostname: name,
      port: 22,
      username: 'u',
      identityFiles: [],
      knownHosts: '/dev/null',
      strictHostKeyChecking: 'yes',
      proxyJump: [],
      connectTimeoutMs: 10_000,
    },
    remotePython: 'python3',
    env: {},
    setup: [],
    workerOptions: { nthreads: 2, nworkers, memoryLimit: 'auto', resources: {}, nanny: true, deathTimeoutS: 60 },
    maxWorkers: nworkers,
  };
}

export function testSpec(o: { workers: string[]; nworkers?: number; dashboard?: string }): ClusterSpec {
  return {
    name: 't',
    local: false,
    schedulerHost: testHost('n0'),
    schedulerOptions: { port: 8786, dashboardAddress: o.dashboard ?? ':8787' },
    workerHosts: o.workers.map((w) => testHost(w, o.nworkers ?? 1)),
  };
}
