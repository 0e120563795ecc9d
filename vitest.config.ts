import { defineConfig } from 'vitest/config';

// e2e files whose outcome depends on Dask's behaviour: they run again on hosts with a
// current Dask (project e2e-dask2024). Add new ones (resources, TLS, …) here.
const DASK_BEHAVIOUR = ['up', 'controller', 'adaptive', 'check', 'dask-version', 'tls-ssh', 'resources', 'apply', 'planted-dir', 'python-package', 'python-pytest', 'task-outcomes'].map((f) => `test/e2e/${f}.test.ts`);

const e2e = {
  globalSetup: ['test/e2e/harness/global-setup.ts'],
  // One set of namespace hosts per project. Without parallelism both e2e projects share
  // vitest's one sequential group: one file at a time, across both projects.
  fileParallelism: false,
  testTimeout: 180_000,
  hookTimeout: 180_000,
};

export default defineConfig({
  test: {
    projects: [
      {
        // Pure: no process, no socket, no server (the setup file makes either throw).
        // Not isolated: a worker runs file after file on one module cache instead of a
        // fresh worker importing everything again for each (that was ~50 of the lane's
        // ~60 s on 2 cores). Pure tests leave nothing behind; what one could (a fake clock,
        // stubs, spies) the setup file and the options below undo after it.
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          setupFiles: ['test/support/pure-guard.ts'],
          testTimeout: 20_000,
          isolate: false,
          restoreMocks: true,
          unstubEnvs: true,
          unstubGlobals: true,
        },
      },
      {
        // Real processes (Python, the built binary, sh), sockets and in-process servers on this machine.
        test: { name: 'integration', include: ['test/integration/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 60_000 },
      },
      {
        // Debian bookworm's distributed 2022.12, the machine's own /usr/bin/python3.
        test: { ...e2e, name: 'e2e', include: ['test/e2e/**/*.test.ts'], provide: { daskLine: '2022.12' } },
      },
      {
        // Debian trixie's distributed 2024.12 (.ci/trixie-root).
        test: { ...e2e, name: 'e2e-dask2024', include: DASK_BEHAVIOUR, provide: { daskLine: '2024.12' } },
      },
    ],
  },
});
