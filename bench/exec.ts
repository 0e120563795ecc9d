// Benchmark: `exec -- true` on 64 (or up to 1,000) real SSH hosts, sshcluster against pdsh and clush.
//
//   npx tsx bench/exec.ts [--rounds N] [--hosts N] [--keep-bashrc] [--check] [--only TOOL,…] [--soft-nofile N] [--no-warmup]
//
// Makes N OpenSSH hosts (one Linux network namespace each, the e2e harness), then runs,
// alternating run by run in each round:
//   1. node bin/sshcluster exec HOSTS.yaml -- true     (default --fanout 32)
//   2. pdsh -R ssh -f 32 -S -l root -w <ips> true      (fanout 32, pdsh's default)
//   3. clush -b -f 32 -l root -w <ips> true            (fanout 32; clush's default is 64)
//   4. with --check: node bin/sshcluster check HOSTS.yaml --json (every row must be clean)
// each under /usr/bin/time: wall time, CPU time (user+sys, the tool and every process it
// waited for, e.g. pdsh's ssh clients) and peak RSS (of the largest single process).
// Every host must answer in every run: a non-zero exit (sshcluster's worst host, pdsh -S)
// or any output from pdsh/clush (`true` prints nothing) fails the bench.
//
// This machine's root ~/.bashrc runs `pyenv init` (~0.14 s CPU on every SSH command);
// the remote bash would pay it 64 times per run for every tool alike and drown the
// tools' own cost. Unless --keep-bashrc, the benchmark re-runs itself in a private mount
// namespace where an empty file is bind-mounted over it; nothing outside changes.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { median } from './lib/proc.js';
import { createTestHosts, writeHostsYaml, type TestHosts } from '../test/e2e/harness/netns-hosts.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const BIN = path.join(ROOT, 'bin/sshcluster');

interface Args {
  rounds: number;
  hosts: number;
  keepBashrc: boolean;
  check: boolean;
  /** Only these tools (--only sshcluster,check), e.g. for a 1,000-host run. */
  only?: string[];
  /** Start sshcluster under this soft limit of open files (`ulimit -Sn`), e.g. 1024. */
  softNofile?: number;
  warmup: boolean;
}

function parseArgs(argv: string[]): Args {
  const a: Args = { rounds: 5, hosts: 64, keepBashrc: false, check: false, warmup: true };
  for (let i = 0; i < argv.length; i++) {
    const f = argv[i];
    if (f === '--rounds') a.rounds = Number(argv[++i]);
    else if (f === '--hosts') a.hosts = Number(argv[++i]);
    else if (f === '--keep-bashrc') a.keepBashrc = true;
    else if (f === '--check') a.check = true;
    else if (f === '--only') a.only = (argv[++i] ?? '').split(',');
    else if (f === '--soft-nofile') a.softNofile = Number(argv[++i]);
    else if (f === '--no-warmup') a.warmup = false;
    else {
      console.error(
        `usage: npx tsx bench/exec.ts [--rounds N] [--hosts N] [--keep-bashrc] [--check] [--only TOOL,…] [--soft-nofile N] [--no-warmup]  (unknown: ${f})`,
      );
      process.exit(2);
    }
  }
  if (!Number.isInteger(a.rounds) || a.rounds < 1 || !Number.isInteger(a.hosts) || a.hosts < 1 || a.hosts > 1000) {
    console.error('bench: --rounds ≥ 1, --hosts 1..1000');
    process.exit(2);
  }
  return a;
}

/** Re-run this script in a private mount namespace with an empty ~/.bashrc; returns false if already there. */
function maskBashrc(args: Args): boolean {
  const bashrc = path.join(os.homedir(), '.bashrc');
  if (args.keepBashrc || process.env.SSHC_BENCH_MASKED === '1' || !existsSync(bashrc)) return false;
  const empty = path.join(mkdtempSync(path.join(os.tmpdir(), 'sshc-bench-')), 'bashrc');
  writeFileSync(empty, '');
  const tsx = path.join(ROOT, 'node_modules/.bin/tsx');
  const r = spawnSync(
    'unshare',
    [
      '--mount',
      '--propagation',
      'private',
      'sh',
      '-c',
      'mount --bind "$0" "$1" && shift && exec "$@"',
      empty,
      bashrc,
      tsx,
      process.argv[1]!,
      ...process.argv.slice(2),
    ],
    {
      stdio: 'inherit',
      env: { ...process.env, SSHC_BENCH_MASKED: '1' },
    },
  );
  rmSync(path.dirname(empty), { recursive: true, force: true });
  process.exit(r.status ?? 1);
}

interface Sample {
  wallS: number;
  cpuS: number;
  rssMB: number;
}

/** `check` says what is wrong with the output of a run that exited 0, if anything. */
function timed(
  argv: string[],
  env: Record<string, string> = {},
  check?: (out: string) => string | undefined,
): Promise<Sample> {
  const out = path.join(os.tmpdir(), `sshc-bench-time-${process.pid}`);
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn('/usr/bin/time', ['-f', '%U %S %M', '-o', out, ...argv], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    child.stdout.on('data', (d: Buffer) => (text += d));
    child.stderr.on('data', (d: Buffer) => (text += d));
    child.on('close', (code) => {
      const wallS = (performance.now() - t0) / 1000;
      if (code !== 0) return reject(new Error(`${argv[0]} exited ${code}:\n${text.slice(-3000)}`));
      const bad = check?.(text);
      if (bad) return reject(new Error(`${argv[0]}: ${bad}`));
      const [u, s, m] = readFileSync(out, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
      rmSync(out, { force: true });
      resolve({ wallS, cpuS: u! + s!, rssMB: m! / 1024 });
    });
  });
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  maskBashrc(args);
  for (const tool of ['pdsh', 'clush', '/usr/bin/time']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0)
      throw new Error(`${tool} is not installed (apt-get install pdsh clustershell time)`);
  }
  const bashrcNote =
    process.env.SSHC_BENCH_MASKED === '1' ? 'remote ~/.bashrc masked (empty)' : 'remote ~/.bashrc as is';
  let hosts: TestHosts | undefined;
  try {
    hosts = await createTestHosts({ count: args.hosts });
    const h = hosts;
    // 30 s to connect, for every tool alike (pdsh -t 30): 256 handshakes on 2 busy cores can take more than 5 s.
    const file = writeHostsYaml(path.join(h.dir, 'hosts.yaml'), h, { connect_options: { connect_timeout: '30s' } });
    const ips = h.hosts.map((x) => x.ip).join(',');
    const sshArgs = `-o ConnectTimeout=30 -i ${h.clientKeyPath} -o UserKnownHostsFile=${h.knownHostsPath} -o StrictHostKeyChecking=yes -o BatchMode=yes`;
    // clush's progress meter ("clush: 12/256") is not an answer.
    const quiet = (out: string) =>
      out.replace(/clush:\s+\d+\/\d+/g, '').trim() ? `output from \`true\`:\n${out.slice(-2000)}` : undefined;
    // This bench is node too, whose soft limit node has raised: sshcluster gets `ulimit -Sn` back from a shell.
    const node = args.softNofile
      ? ['sh', '-c', `ulimit -Sn ${args.softNofile} && exec "$@"`, 'sh', process.execPath]
      : [process.execPath];
    const tools: Record<string, () => Promise<Sample>> = {
      sshcluster: () => timed([...node, BIN, 'exec', file, '--', 'true']),
      pdsh: () =>
        timed(
          ['pdsh', '-R', 'ssh', '-f', '32', '-t', '30', '-S', '-l', 'root', '-w', ips, 'true'],
          { PDSH_SSH_ARGS_APPEND: sshArgs },
          quiet,
        ),
      clush: () => timed(['clush', '-b', '-f', '32', '-l', 'root', '-o', sshArgs, '-w', ips, 'true'], {}, quiet),
      ...(args.check
        ? {
            check: () => timed([...node, BIN, 'check', file, '--json'], {}, (out) => checkRows(out, args.hosts)),
          }
        : {}),
    };
    const names = Object.keys(tools).filter((n) => !args.only || args.only.includes(n));
    const samples: Record<string, Sample[]> = Object.fromEntries(names.map((n) => [n, []]));
    if (args.warmup) for (const n of names) await tools[n]!(); // warm-up: page cache, sshd keys in memory
    for (let round = 0; round < args.rounds; round++) {
      const order = names.map((_, i) => names[(i + round) % names.length]!);
      for (const n of order) {
        const s = await tools[n]!();
        samples[n]!.push(s);
        console.error(
          `round ${round + 1} ${n.padEnd(10)} wall ${s.wallS.toFixed(3)}s  cpu ${s.cpuS.toFixed(2)}s  rss ${s.rssMB.toFixed(0)} MB`,
        );
      }
    }
    report(args, samples, bashrcNote);
  } finally {
    await hosts?.teardown();
  }
}

/** Every host a row, every row connected and without a problem; else what is wrong. */
function checkRows(out: string, hosts: number): string | undefined {
  const doc = JSON.parse(out.slice(out.indexOf('{'))) as {
    rows: { host: string; connect?: { ok?: boolean }; problems?: unknown[] }[];
  };
  const bad = doc.rows.filter((r) => r.connect?.ok !== true || (r.problems ?? []).length > 0);
  if (doc.rows.length !== hosts) return `${doc.rows.length} rows for ${hosts} hosts`;
  return bad.length ? `${bad.length} rows not clean: ${JSON.stringify(bad.slice(0, 3))}` : undefined;
}

function report(args: Args, samples: Record<string, Sample[]>, note: string): void {
  const med = (n: string, k: keyof Sample): number => median(samples[n]!.map((s) => s[k])) ?? NaN;
  const base = { wall: med('sshcluster', 'wallS'), cpu: med('sshcluster', 'cpuS'), rss: med('sshcluster', 'rssMB') };
  console.log(
    `\nexec -- true on ${args.hosts} hosts, median of ${args.rounds} rounds, ${os.cpus().length} cores, ${note}\n`,
  );
  console.log('| tool | wall | CPU (user+sys) | peak RSS | wall ratio | CPU ratio |');
  console.log('|---|---|---|---|---|---|');
  for (const n of Object.keys(samples)) {
    const [w, c, r] = [med(n, 'wallS'), med(n, 'cpuS'), med(n, 'rssMB')];
    const ratio = (x: number, b: number): string => (n === 'sshcluster' ? '1' : `${(x / b).toFixed(2)}×`);
    console.log(
      `| ${n} | ${w.toFixed(2)} s | ${c.toFixed(2)} s | ${r.toFixed(0)} MB | ${ratio(w, base.wall)} | ${ratio(c, base.cpu)} |`,
    );
  }
}

await main();
