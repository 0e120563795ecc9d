// Benchmark: what TLS costs a data-heavy workload (issue: users worry, distributed#5284).
//
//   sudo npx tsx bench/tls.ts [--rounds N] [--timeout SECONDS]
//
// On the same 4 OpenSSH namespace hosts (scheduler on host 0, one 2-thread worker with a
// nanny on each of hosts 1-3), alternating round by round which goes first:
//   1. `up --detach` with `security: tls` (the default), the client from `sshcluster env`;
//   2. `up --detach` with `security: none`, a plain `tcp://` client.
// One client script (bench/py/tls_transfer.py) makes 96 blocks of 10 MiB on the workers,
// then has each block's length computed on another worker: ~960 MiB between workers.
// Reported: median seconds to make the blocks and to move them, and TLS / plain.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestHosts, writeHostsYaml, type TestHosts } from '../test/e2e/harness/netns-hosts.js';
import { BIN, ensureClean, machineLines, onSignals, preflight, PY, runSync } from './lib/hosts.js';
import { BenchAbort, median, parseBenchArgs, runMain } from './lib/proc.js';

const CLIENT = fileURLToPath(new URL('./py/tls_transfer.py', import.meta.url));
const MODES = ['tls', 'none'] as const;
type Mode = (typeof MODES)[number];
const WORKLOAD = { workers: 3, blocks: 96, size: 10 << 20 };

interface Sample {
  make: number;
  transfer: number;
}

async function round(hosts: TestHosts, mode: Mode, stateHome: string, timeoutMs: number): Promise<Sample> {
  const name = `bench-tls-${mode}`;
  const file = writeHostsYaml(path.join(hosts.dir, `${name}.yaml`), hosts, {
    name,
    security: mode,
    env: { DASK_TEMPORARY_DIRECTORY: path.join(hosts.dir, 'scratch') },
    worker_options: { nthreads: 2, nworkers: 1, nanny: true },
  });
  const env = { ...process.env, NO_COLOR: '1', XDG_STATE_HOME: stateHome };
  const up = runSync(process.execPath, [BIN, 'up', file, '--detach'], env, timeoutMs);
  try {
    if (!up.ok) throw new BenchAbort(`up (${mode}) failed: ${up.out.slice(-1500)}`);
    const vars = JSON.parse(runSync(process.execPath, [BIN, 'env', '--name', name, '--json'], env).stdout)
      .env as Record<string, string>;
    const r = runSync(
      PY,
      ['-W', 'ignore', CLIENT, JSON.stringify(WORKLOAD)],
      { PATH: '/usr/bin:/bin', ...vars },
      timeoutMs,
    );
    const line = r.out.split('\n').find((l) => l.startsWith('BENCH '));
    const got = line ? (JSON.parse(line.slice(6)) as Sample & { ok: boolean }) : undefined;
    if (!got?.ok) throw new BenchAbort(`client (${mode}) failed: ${r.out.slice(-1500)}`);
    return { make: got.make, transfer: got.transfer };
  } finally {
    runSync(process.execPath, [BIN, 'down', '--name', name], env, timeoutMs);
    await ensureClean(hosts.hosts, `down (${mode})`);
  }
}

async function main(): Promise<number> {
  const { rounds, timeoutMs } = parseBenchArgs(
    process.argv.slice(2),
    { rounds: 3, timeoutS: 300 },
    'usage: sudo npx tsx bench/tls.ts [--rounds N] [--timeout SECONDS]',
  );
  preflight(() => []);
  onSignals();
  const stateHome = mkdtempSync(path.join(os.tmpdir(), 'sshc-bench-tls-'));
  let hosts: TestHosts | undefined;
  try {
    hosts = await createTestHosts({ count: 4 });
    const samples: Record<Mode, Sample[]> = { tls: [], none: [] };
    for (let r = 0; r < rounds; r++) {
      for (const mode of r % 2 === 0 ? MODES : [...MODES].reverse()) {
        const s = await round(hosts, mode, stateHome, timeoutMs);
        samples[mode].push(s);
        console.error(
          `round ${r + 1} ${mode.padEnd(4)} make ${s.make.toFixed(2)}s  transfer ${s.transfer.toFixed(2)}s`,
        );
      }
    }
    const med = (m: Mode, k: keyof Sample) => median(samples[m].map((s) => s[k])) ?? NaN;
    console.log(['', ...machineLines(['distributed']), ''].join('\n'));
    console.log(
      `${WORKLOAD.blocks} × ${WORKLOAD.size >> 20} MiB between ${WORKLOAD.workers} workers on namespace hosts, median of ${rounds} rounds\n`,
    );
    console.log('| security | make the blocks | move them between workers |');
    console.log('|---|---|---|');
    for (const m of MODES)
      console.log(`| ${m} | ${med(m, 'make').toFixed(2)} s | ${med(m, 'transfer').toFixed(2)} s |`);
    console.log(
      `| tls / none | ${(med('tls', 'make') / med('none', 'make')).toFixed(2)}× | ${(med('tls', 'transfer') / med('none', 'transfer')).toFixed(2)}× |`,
    );
    return 0;
  } catch (err) {
    if (err instanceof BenchAbort) {
      console.error(`bench: ${err.message}`);
      return 1;
    }
    throw err;
  } finally {
    await hosts?.teardown();
    rmSync(stateHome, { recursive: true, force: true });
  }
}

runMain(main);
