// Benchmark: how long the short commands take, whole process, against Node's own start.
//
//   sudo npx tsx bench/cli.ts [--rounds N] [--hosts N] [--timeout SECONDS]
//
// On N OpenSSH namespace hosts (the e2e harness; default 4), `up --detach` once, then N
// rounds (default 15) that each run, in turn, `node -e 0`, `sshcluster --help`,
// `sshcluster list` and `sshcluster status --name NAME` (the cluster's controller
// answers), each as a fresh process, timed from spawn to exit; then `down`. Reported:
// min/median/max of each and the ratio of each median to `node -e 0`'s (the issue's
// target: ≤ 2×). Every command must exit 0; one that does not aborts the run.
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { withDetachedCluster } from './lib/detached.js';
import { BIN, machineLines, onSignals, preflight } from './lib/hosts.js';
import { BenchAbort, median, parseBenchArgs, runMain } from './lib/proc.js';

const fmt = (ms: number) => `${(ms / 1000).toFixed(3)}s`;

const USAGE =
  'usage: sudo npx tsx bench/cli.ts [--rounds N] [--hosts N] [--timeout SECONDS]\n' +
  '  --rounds N         rounds of (node -e 0, --help, list, status), default 15\n' +
  '  --hosts N          SSH hosts of the cluster `status` asks about, default 4';

async function main(): Promise<number> {
  const { rounds, timeoutMs, own } = parseBenchArgs(process.argv.slice(2), { rounds: 15, timeoutS: 120 }, USAGE, [
    'hosts',
  ]);
  const count = Number(own.hosts ?? 4);
  if (!Number.isInteger(count) || count < 2) {
    console.error(`bench: --hosts expects an integer >= 2\n${USAGE}`);
    return 2;
  }
  preflight(() => []);
  onSignals();
  const header = machineLines(['distributed']);
  header.push(
    `setup: a detached cluster on ${count} OpenSSH hosts in network namespaces; ${rounds} round(s), each command a fresh process, alternating`,
  );
  for (const l of header) console.log(l);
  const times = await withDetachedCluster({ count, name: 'bench-cli', timeoutMs }, async ({ env, name }) => {
    const contenders: [string, string[]][] = [
      ['node -e 0', ['-e', '0']],
      ['sshcluster --help', [BIN, '--help']],
      ['sshcluster list', [BIN, 'list']],
      [`sshcluster status (${count} hosts)`, [BIN, 'status', '--name', name]],
    ];
    const times = new Map<string, number[]>(contenders.map(([label]) => [label, []]));
    for (let r = 0; r < rounds; r++) {
      for (const [label, args] of contenders) {
        const t0 = performance.now();
        const p = spawnSync(process.execPath, args, { env, encoding: 'utf8', timeout: 60_000 });
        const ms = performance.now() - t0;
        if (p.status !== 0) throw new BenchAbort(`${label} exited ${p.status}: ${(p.stderr || p.stdout).slice(-800)}`);
        times.get(label)!.push(ms);
      }
    }
    return times;
  });
  const floor = median(times.get('node -e 0')!)!;
  const rows = [...times].map(([label, xs]) => {
    const m = median(xs)!;
    return `${label.padEnd(34)} ${fmt(m).padStart(7)} ${fmt(Math.min(...xs)).padStart(7)} ${fmt(Math.max(...xs)).padStart(7)}   ${(m / floor).toFixed(2)}x`;
  });
  console.log(
    [
      '',
      '='.repeat(72),
      ...header,
      '',
      `${'command'.padEnd(34)} ${'median'.padStart(7)} ${'min'.padStart(7)} ${'max'.padStart(7)}   / node -e 0`,
      ...rows,
      '='.repeat(72),
    ].join('\n'),
  );
  return 0;
}

runMain(main);
