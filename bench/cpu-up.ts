// Benchmark: where the CPU of `up` goes, against the raw-Dask floor, on 4 SSH hosts.
//
//   sudo npx tsx bench/cpu-up.ts [--rounds N] [--timeout SECONDS] [--bashrc empty|slow|FILE]
//
// On this 2-core machine every host shares the same 2 cores, so `up` is CPU-bound: its
// time over the floor's is about the CPU it spends beyond the floor's, halved. This says
// whose that CPU is. Each round runs both, in alternating order, each timed from spawn to
// 3 workers registered (as bench/up.ts), and reads at that moment:
// - the machine's CPU since spawn (/proc/stat: every process, the kernel's network work);
// - the CPU of the Dask processes (scheduler, nannies, their workers and resource trackers);
// - for sshcluster, the CLI's own (node) and that of everything else on the hosts: sshd,
//   the login shells, the launchers, and what exited before (a cpuacct cgroup holds the
//   hosts' sshd listeners, so it counts all they start).
// Before the rounds, the host CPU of one SSH session that runs `true`, for scale.
// The floor is started as in bench/up.ts (scheduler, then the workers once it listens).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  BenchAbort,
  closedWithin,
  killAndWait,
  median,
  parseBenchArgs,
  procStat,
  runMain,
  start,
  tail,
} from './lib/proc.js';
import {
  bashrcFile,
  BIN,
  ensureClean,
  machineLines,
  onSignals,
  preflight,
  PY,
  SCHED_PORT,
  DASH_PORT,
} from './lib/hosts.js';
import { createTestHosts, writeHostsYaml, type TestHosts } from '../test/e2e/harness/netns-hosts.js';

const USAGE =
  'usage: sudo npx tsx bench/cpu-up.ts [--rounds N] [--timeout SECONDS] [--bashrc empty|slow|FILE]\n' +
  '  --rounds N        rounds of both contenders, default 5 (plus one warm-up)\n' +
  "  --bashrc WHICH    the hosts' ~/.bashrc: empty (default), slow (`sleep 0.3`) or a FILE";
const HOSTS = 4;
const WORKERS = HOSTS - 1;
const CPUACCT = '/sys/fs/cgroup/cpuacct';
const TICK_MS = 1000 / 100; // USER_HZ

/** Busy CPU of the whole machine, ms: user nice system irq softirq steal. */
function machineCpu(): number {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  return (f[0]! + f[1]! + f[2]! + f[5]! + f[6]! + f[7]!) * TICK_MS;
}

function cpuOf(pid: number | string): number {
  const st = procStat(pid);
  return (Number(st[11]) + Number(st[12])) * TICK_MS;
}

/** CPU so far of every live Dask process (by command line; launchers, which name the command, excluded). */
function daskCpu(): number {
  let sum = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!/distributed\.cli|multiprocessing/.test(cmd) || cmd.includes('sshcluster-launcher')) continue;
      sum += cpuOf(pid);
    } catch {
      /* gone */
    }
  }
  return sum;
}

/** A cpuacct cgroup holding the hosts' sshd listeners, and so all they start; undefined without cgroup v1 cpuacct. */
function hostsCgroup(info: TestHosts): { usage: () => number; remove: () => void } | undefined {
  const dir = path.join(CPUACCT, `sshc-bench-${process.pid}`);
  try {
    mkdirSync(dir);
    for (const h of info.hosts) writeFileSync(path.join(dir, 'cgroup.procs'), String(h.sshdPid));
  } catch {
    return undefined;
  }
  return {
    usage: () => Number(readFileSync(path.join(dir, 'cpuacct.usage'), 'utf8')) / 1e6,
    // Called after the hosts are gone: the cgroup is empty then.
    remove: () => {
      try {
        rmdirSync(dir);
      } catch {
        /* still busy or gone */
      }
    },
  };
}

interface Run {
  up: number;
  machine: number;
  dask: number;
  node?: number;
  hostsOther?: number;
}

async function runSshcluster(yaml: string, cg: ReturnType<typeof hostsCgroup>, timeoutMs: number): Promise<Run> {
  const m0 = machineCpu();
  const h0 = cg?.usage();
  const p = start(process.execPath, [BIN, 'up', '--no-tui', yaml], { ...process.env, NO_COLOR: '1' });
  const up = await p.waitFor(/Cluster up: (\d+) worker\(s\)/, timeoutMs);
  if (up === 'timeout' || up === 'exited') {
    await killAndWait(p);
    throw new BenchAbort(
      `sshcluster: ${up === 'timeout' ? `no "Cluster up" in ${timeoutMs / 1000}s` : 'exited before "Cluster up"'}:\n${tail(p.out())}`,
    );
  }
  const machine = machineCpu() - m0;
  const dask = daskCpu();
  const node = cpuOf(p.child.pid!);
  // The hosts' CPU is Dask's plus the rest: sshd, shells, launchers, what exited.
  const hostsOther = cg && h0 !== undefined ? cg.usage() - h0 - dask : undefined;
  p.child.kill('SIGINT');
  const exit = await closedWithin(p, 60_000);
  if (!exit || exit.code !== 0) {
    await killAndWait(p);
    throw new BenchAbort(`sshcluster: the stop did not exit 0:\n${tail(p.out())}`);
  }
  return { up: up.at - p.t0, machine, dask, node, hostsOther };
}

async function runFloor(info: TestHosts, scratch: string, timeoutMs: number): Promise<Run> {
  const [s, ...ws] = info.hosts;
  const env = { ...process.env, DASK_TEMPORARY_DIRECTORY: scratch };
  const inNs = (ns: string, args: string[]) => start('ip', ['netns', 'exec', ns, PY, '-m', ...args], env);
  const m0 = machineCpu();
  const t0 = performance.now();
  const sched = inNs(s!.ns, [
    'distributed.cli.dask_scheduler',
    '--host',
    s!.ip,
    '--port',
    String(SCHED_PORT),
    '--dashboard-address',
    `:${DASH_PORT}`,
  ]);
  const listening = await sched.waitFor(/Scheduler at:/, timeoutMs);
  const workers =
    typeof listening === 'object'
      ? ws.map((h) =>
          inNs(h.ns, [
            'distributed.cli.dask_worker',
            `tcp://${s!.ip}:${SCHED_PORT}`,
            '--host',
            h.ip,
            '--nthreads',
            '2',
            '--nanny',
          ]),
        )
      : [];
  const up = workers.length ? await sched.waitForCount('Register worker', WORKERS, timeoutMs) : listening;
  const machine = machineCpu() - m0;
  const dask = daskCpu();
  for (const w of workers) w.child.kill('SIGTERM');
  await Promise.all(workers.map((w) => closedWithin(w, 60_000)));
  sched.child.kill('SIGTERM');
  await closedWithin(sched, 60_000);
  await Promise.all([sched, ...workers].map((p) => killAndWait(p)));
  if (typeof up !== 'object')
    throw new BenchAbort(`floor: the scheduler logged no ${WORKERS}rd worker (${up}):\n${tail(sched.out())}`);
  return { up: up.at - t0, machine, dask };
}

/** Host CPU of one SSH session running `true` (OpenSSH's client, the hosts' sshd), median of 5 rounds of all hosts. */
async function sessionCpu(info: TestHosts, cg: NonNullable<ReturnType<typeof hostsCgroup>>): Promise<number> {
  const per: number[] = [];
  for (let i = 0; i < 6; i++) {
    const u0 = cg.usage();
    const ps = info.hosts.map((h) =>
      start('ssh', [
        '-F',
        '/dev/null',
        '-i',
        info.clientKeyPath,
        '-o',
        `UserKnownHostsFile=${info.knownHostsPath}`,
        '-o',
        'StrictHostKeyChecking=yes',
        '-o',
        'BatchMode=yes',
        '-l',
        'root',
        h.ip,
        'true',
      ]),
    );
    const exits = await Promise.all(ps.map((p) => closedWithin(p, 30_000)));
    if (exits.some((e) => !e || e.code !== 0))
      throw new BenchAbort(`ssh HOST true failed:\n${tail(ps.map((p) => p.out()).join('\n'))}`);
    if (i > 0) per.push((cg.usage() - u0) / info.hosts.length);
  }
  return median(per)!;
}

async function main(): Promise<number> {
  const { rounds, timeoutMs, own } = parseBenchArgs(process.argv.slice(2), { rounds: 5, timeoutS: 120 }, USAGE, [
    'bashrc',
  ]);
  preflight(() => []);
  let dir: string | undefined;
  const mkScratch = () => (dir ??= mkdtempSync(path.join(os.tmpdir(), 'sshc-cpu-')));
  const rc = bashrcFile(own.bashrc ?? 'empty', mkScratch);
  const scratch = mkScratch();
  console.log(machineLines(['distributed']).join('\n'));
  console.log(
    `setup: ${HOSTS} OpenSSH hosts in network namespaces (host 0 scheduler, hosts 1-3 one worker each, nthreads 2, nanny), plain TCP, ~/.bashrc ${rc.label}, ${rounds} round(s) after one warm-up`,
  );
  onSignals();
  const info = await createTestHosts({ count: HOSTS, bashrc: rc.file });
  const cg = hostsCgroup(info);
  try {
    if (info.mode !== 'netns')
      throw new BenchAbort('network namespaces unavailable; this benchmark needs one namespace per host');
    const yaml = writeHostsYaml(path.join(info.dir, 'cpu-hosts.yaml'), info, {
      name: 'cpu',
      env: { DASK_TEMPORARY_DIRECTORY: path.join(scratch, 'dask') },
      scheduler_options: { port: SCHED_PORT, dashboard_address: `:${DASH_PORT}` },
      worker_options: { nthreads: 2, nworkers: 1, nanny: true },
      hosts: info.hosts.map((h) => h.ip),
    });
    if (cg)
      console.log(
        `one SSH session running \`true\`: ${(await sessionCpu(info, cg)).toFixed(1)} ms of its host's CPU (sshd and the login shell; median)`,
      );
    else console.log(`no cgroup v1 cpuacct at ${CPUACCT}: the hosts' CPU outside Dask is not split out`);
    const runs: Record<'sshcluster' | 'floor', Run[]> = { sshcluster: [], floor: [] };
    for (let round = 0; round <= rounds; round++) {
      for (const which of round % 2 ? (['floor', 'sshcluster'] as const) : (['sshcluster', 'floor'] as const)) {
        const r =
          which === 'sshcluster'
            ? await runSshcluster(yaml, cg, timeoutMs)
            : await runFloor(info, path.join(scratch, 'dask'), timeoutMs);
        await ensureClean(info.hosts, which);
        if (round === 0) continue;
        runs[which].push(r);
        const extra =
          which === 'sshcluster'
            ? `, node ${r.node} ms${r.hostsOther === undefined ? '' : `, hosts outside Dask ${Math.round(r.hostsOther)} ms`}`
            : '';
        console.log(
          `round ${round}/${rounds} ${which.padEnd(10)} up ${Math.round(r.up)} ms; CPU to up: machine ${Math.round(r.machine)} ms, Dask ${r.dask} ms${extra}`,
        );
      }
    }
    const m = (w: 'sshcluster' | 'floor', k: keyof Run) =>
      median(runs[w].map((r) => r[k]).filter((v): v is number => v !== undefined));
    const f = (v: number | undefined) => (v === undefined ? '-' : `${Math.round(v)} ms`);
    console.log('\nmedians                 up        machine CPU   Dask CPU   node CPU   hosts outside Dask');
    for (const w of ['sshcluster', 'floor'] as const) {
      console.log(
        `${w.padEnd(22)}  ${f(m(w, 'up')).padEnd(9)} ${f(m(w, 'machine')).padEnd(13)} ${f(m(w, 'dask')).padEnd(10)} ${f(m(w, 'node')).padEnd(10)} ${f(m(w, 'hostsOther'))}`,
      );
    }
    const d = (k: keyof Run) => m('sshcluster', k)! - m('floor', k)!;
    console.log(`sshcluster - floor       ${f(d('up')).padEnd(9)} ${f(d('machine')).padEnd(13)} ${f(d('dask'))}`);
    return 0;
  } finally {
    await info.teardown();
    cg?.remove();
    rmSync(scratch, { recursive: true, force: true });
  }
}

runMain(main);
