// Benchmark: the background controller's memory, and `status` latency, at N SSH hosts.
//
//   sudo npx tsx bench/rss.ts [--hosts N] [--seconds S] [--security tls|none] [--timeout SECONDS]
//
// On N OpenSSH namespace hosts (the e2e harness; scheduler on host 0, one 1-thread worker
// without nanny on each other host), `up --detach`, then `scale` to 1, all, half and all
// workers again, then S seconds of sampling `VmRSS` of the controller (/proc/<pid>/status)
// every second with a `status --json` every 5 s, then `down`. Reported: RSS min/median/max
// over the sampling, `VmHWM` (the peak since start), how much of it is the controller's
// own (RssAnon) and how much node's shared code (RssFile), PSS, the same for an idle
// `node` (the floor), its open file descriptors, the median `status --json` time, and
// the SSH exec sessions (remote shells: each runs the login user's ~/.bashrc) each command
// opened on the scheduler's host and on each worker host, from the sshd logs.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { TestHosts } from '../test/e2e/harness/netns-hosts.js';
import { withDetachedCluster } from './lib/detached.js';
import { BIN, machineLines, onSignals, preflight, runSync } from './lib/hosts.js';
import { BenchAbort, median, parseBenchArgs, procStat, runMain, sleep } from './lib/proc.js';

const USAGE =
  'usage: sudo npx tsx bench/rss.ts [--hosts N] [--seconds S] [--security tls|none] [--timeout SECONDS]\n' +
  '  --hosts N          SSH hosts (scheduler on the first, one worker on each other), default 4\n' +
  '  --seconds S        sampling after the scale cycles, default 30\n' +
  '  --security MODE    tls (the default, as a user gets it) or none';

/** kB fields of /proc/<pid>/status, in MB (10^6 bytes). */
/** SSH exec sessions each host's sshd has started so far (its log, LogLevel VERBOSE). */
const sessions = (h: TestHosts) =>
  h.hosts.map(
    (_, i) =>
      (readFileSync(path.join(h.dir, `sshd-${i}.log`), 'utf8').match(/Starting session: command/g) ?? []).length,
  );

/** "scheduler host 2, worker hosts 1" (or "1-2" when they differ) for what `run` opened. */
async function counted<T>(h: TestHosts, what: string, lines: string[], run: () => T | Promise<T>): Promise<T> {
  const before = sessions(h);
  const r = await run();
  const d = sessions(h).map((n, i) => n - before[i]!);
  const w = d.slice(1);
  const [lo, hi] = [Math.min(...w), Math.max(...w)];
  lines.push(`SSH exec sessions, ${what}: scheduler host ${d[0]}, each worker host ${lo === hi ? lo : `${lo}-${hi}`}`);
  return r;
}

/**
 * RSS splits into the process's own pages (RssAnon) and file pages (RssFile): mostly the
 * node binary's code, clean and shared with every other node process. PSS charges each
 * shared page to its sharers.
 */
function memOf(pid: number): { rss: number; hwm: number; anon: number; file: number; pss: number } {
  const kb = (text: string, field: string) =>
    (Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN) * 1024) / 1e6;
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  return {
    rss: kb(status, 'VmRSS'),
    hwm: kb(status, 'VmHWM'),
    anon: kb(status, 'RssAnon'),
    file: kb(status, 'RssFile'),
    pss: kb(rollup, 'Pss'),
  };
}

/** USER_HZ: the unit of /proc/<pid>/stat's CPU times on Linux. */
const CLOCK_TICKS = 100;

/** CPU time (user + system) the process has used, in ms. */
function cpuMsOf(pid: number): number {
  const f = procStat(pid);
  return ((Number(f[11]) + Number(f[12])) * 1000) / CLOCK_TICKS;
}

/** The same figures for an idle `node` that has done nothing: the floor of any Node controller. */
async function idleNode(): Promise<ReturnType<typeof memOf>> {
  const p = spawn(process.execPath, ['-e', 'console.log(1); setTimeout(() => {}, 60_000)'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  try {
    await new Promise((r) => p.stdout.once('data', r));
    await sleep(1000);
    return memOf(p.pid!);
  } finally {
    p.kill('SIGKILL');
  }
}

async function main(): Promise<number> {
  const { timeoutMs, own } = parseBenchArgs(process.argv.slice(2), { rounds: 1, timeoutS: 600 }, USAGE, [
    'hosts',
    'seconds',
    'security',
  ]);
  const count = Number(own.hosts ?? 4);
  const seconds = Number(own.seconds ?? 30);
  const security = own.security ?? 'tls';
  if (!Number.isInteger(count) || count < 2 || !(seconds > 0) || !['tls', 'none'].includes(security)) {
    console.error(`bench: bad arguments\n${USAGE}`);
    return 2;
  }
  preflight(() => []);
  onSignals();
  const header = machineLines(['distributed']);
  header.push(
    `setup: ${count} OpenSSH hosts in network namespaces, ${count - 1} workers (1 thread, no nanny), security ${security}, ${seconds}s of sampling`,
  );
  for (const l of header) console.log(l);
  const execLines: string[] = [];
  let upSeconds = 0;
  const around = async <R>(what: string, hosts: TestHosts, run: () => R): Promise<R> => {
    const t0 = performance.now();
    const r = await counted(hosts, what, execLines, run);
    if (what === 'up --detach') upSeconds = (performance.now() - t0) / 1000;
    return r;
  };
  const {
    all,
    rss,
    own: ownPages,
    statusMs,
    cpuShare,
    last,
    idle,
    fds,
  } = await withDetachedCluster(
    { count, name: 'bench-rss', security: security as 'tls' | 'none', timeoutMs, around },
    async ({ hosts, env, name, stateHome, upOut }) => {
      console.log(`up --detach: ${upSeconds.toFixed(2)}s to "${/Cluster up: [^\n]*/.exec(upOut)?.[0] ?? '?'}"`);
      // A host that failed says why on its own line; the run goes on (scale brings it back).
      for (const l of upOut.split('\n').filter((x) => /\] failed: /.test(x))) console.log(`  ${l.slice(0, 300)}`);
      const state = JSON.parse(readFileSync(path.join(stateHome, 'sshcluster', name, 'state.json'), 'utf8')) as {
        controller: { pid: number };
      };
      const pid = state.controller.pid;
      const all = count - 1;
      for (const n of [1, all, Math.max(1, Math.floor(all / 2)), all]) {
        const s = await counted(hosts, `scale ${n}`, execLines, () =>
          runSync(process.execPath, [BIN, 'scale', String(n), '--name', name], env, timeoutMs),
        );
        if (!s.ok) throw new BenchAbort(`scale ${n} failed: ${s.out.slice(-1500)}`);
      }
      const rss: number[] = [];
      const own: number[] = [];
      const statusMs: number[] = [];
      const cpu0 = cpuMsOf(pid);
      const t0 = performance.now();
      for (let i = 0; i < seconds; i++) {
        if (i % 5 === 0) {
          const t = performance.now();
          const st = await counted(hosts, 'status --json', execLines, () =>
            runSync(process.execPath, [BIN, 'status', '--name', name, '--json'], env, 60_000),
          );
          if (!st.ok) throw new BenchAbort(`status failed: ${st.out.slice(-800)}`);
          statusMs.push(performance.now() - t);
        }
        const sample = memOf(pid);
        rss.push(sample.rss);
        own.push(sample.anon);
        await sleep(1000);
      }
      const cpuShare = (cpuMsOf(pid) - cpu0) / (performance.now() - t0);
      return {
        all,
        rss,
        own,
        statusMs,
        cpuShare,
        last: memOf(pid),
        idle: await idleNode(),
        fds: readdirSync(`/proc/${pid}/fd`).length,
      };
    },
  );
  const mb = (v: number | undefined) => (v === undefined ? '-' : `${v.toFixed(1)} MB`);
  console.log(
    [
      '',
      '='.repeat(72),
      ...header,
      `controller RSS over ${seconds}s after scale 1/${all}/${Math.max(1, Math.floor(all / 2))}/${all}: min ${mb(Math.min(...rss))}, median ${mb(median(rss))}, max ${mb(Math.max(...rss))}; peak since start (VmHWM) ${mb(last.hwm)}`,
      `  of which its own (RssAnon): median ${mb(median(ownPages))}; at the end: RssAnon ${mb(last.anon)}, RssFile ${mb(last.file)} (node's code, shared), PSS ${mb(last.pss)}`,
      `idle \`node\` (the floor): RSS ${mb(idle.rss)}, RssAnon ${mb(idle.anon)}, RssFile ${mb(idle.file)}, PSS ${mb(idle.pss)}`,
      `controller CPU over the sampling (status calls included): ${(cpuShare * 100).toFixed(1)}% of one core`,
      `controller open file descriptors: ${fds}`,
      `status --json: median ${((median(statusMs) ?? 0) / 1000).toFixed(2)}s over ${statusMs.length} calls`,
      ...[...new Set(execLines)],
      '='.repeat(72),
    ].join('\n'),
  );
  return 0;
}

runMain(main);
