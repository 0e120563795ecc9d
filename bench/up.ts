// Benchmark: time to a running 3-worker Dask cluster on 4 real SSH hosts, and back.
//
//   sudo npx tsx bench/up.ts [--rounds N] [--timeout SECONDS] [--bashrc empty|slow|FILE]
//
// Compares, on the same 4 OpenSSH hosts (one Linux network namespace each, made by the
// e2e harness), alternating run by run:
//   1. `sshcluster up HOSTS.yaml`: spawn -> "Cluster up: 3 worker(s)", then SIGINT -> exit 0;
//   2. Dask's own `distributed.SSHCluster(...)` + `client.wait_for_workers(3)`, then close;
// (3 workers on 4 hosts by default; --hosts N for N-1, e.g. 65 for the 64-worker run).
//   3. `pdsh -R ssh -w <4 hosts> true`: the bare cost of reaching 4 hosts over SSH once;
//   4. the raw-Dask floor: `dask scheduler`, then 3 `dask worker`s once it listens, started
//      directly in the namespaces (no SSH), until the scheduler logs the third worker;
//      then SIGTERM to the workers, and to the scheduler once they are gone.
// Every SSH exec runs the login user's ~/.bashrc; --bashrc puts another one in its place
// on the hosts (empty, or `sleep 0.3` for a conda/pyenv-like init), and each run counts
// the SSH exec sessions (remote shells) it opened per host.
// See bench/README.md for what each figure means. Over 200 lines: one whole experiment
// (three contenders, their leftover checks, the report); what benchmarks share is in bench/lib/.
import {
  BenchAbort,
  closedWithin,
  fmt,
  killAndWait,
  killChildren,
  median,
  min,
  parseBenchArgs,
  runMain,
  shortfallLines,
  start,
  tail,
} from './lib/proc.js';
import {
  bashrcFile,
  BIN,
  DASH_PORT,
  ensureClean,
  machineLines,
  onSignals,
  preflight,
  PY,
  runSync,
  SCHED_PORT,
  type Leftover,
} from './lib/hosts.js';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { observer } from './lib/observer.js';
import { DEFAULT_CONNECT_TIMEOUT_MS } from '../src/config/defaults.js';
import { createTestHosts, daskRole, writeHostsYaml, type TestHosts } from '../test/e2e/harness/netns-hosts.js';

/** The cluster every contender starts: host 0 the scheduler, each other host one worker. */
const SHAPE = { hosts: 4, nthreads: 2, nanny: true };
const WORKERS = () => SHAPE.hosts - 1;
const benchHosts = (info: TestHosts) => info.hosts.slice(0, SHAPE.hosts);

// ---------------------------------------------------------------- arguments

const USAGE =
  'usage: npx tsx bench/up.ts [--rounds N] [--timeout SECONDS] [--bashrc empty|slow|FILE] [--hosts N] [--nthreads N] [--nanny on|off]\n' +
  '  --rounds N         rounds of (sshcluster, SSHCluster, pdsh, raw floor), default 5\n' +
  '  --timeout SECONDS  per-run limit for reaching all workers, default 120\n' +
  '  --hosts N          SSH hosts: the scheduler on the first, one worker on each other; default 4\n' +
  '  --nthreads N       threads per worker, default 2; --nanny on|off, default on (the same for every contender)\n' +
  "  --bashrc WHICH     the hosts' ~/.bashrc: empty, slow (`sleep 0.3`) or a FILE; default: this machine's own\n" +
  'Needs root (network namespaces), sshd, pdsh, python3-distributed, python3-asyncssh.';

/** "5 / 3": exec sessions on the scheduler's host, then on each worker host (a range when they differ). */
function execText(execs: number[] | undefined): string {
  if (!execs?.length) return '-';
  const [first, ...rest] = execs;
  const [lo, hi] = [Math.min(...rest), Math.max(...rest)];
  return `${first} / ${lo === hi ? lo : `${lo}-${hi}`}`;
}

/** SSH exec sessions each host's sshd has started so far (its log says so at LogLevel VERBOSE). */
const sessions = (info: TestHosts) =>
  benchHosts(info).map(
    (_, i) =>
      (readFileSync(path.join(info.dir, `sshd-${i}.log`), 'utf8').match(/Starting session: command/g) ?? []).length,
  );

// ---------------------------------------------------------------- pre-flight

onSignals();

const ownProblems = (): string[] => {
  const problems: string[] = [];
  if (!runSync(PY, ['-c', 'import distributed']).ok)
    problems.push(`${PY} has no distributed: apt-get install -y python3-distributed`);
  if (!runSync(PY, ['-W', 'ignore', '-c', 'import asyncssh']).ok) {
    problems.push(
      `${PY} has no asyncssh, which Dask's SSHCluster needs: apt-get update && apt-get install -y python3-asyncssh`,
    );
  }
  if (!runSync('pdsh', ['-V']).ok) problems.push('pdsh not found: apt-get install -y pdsh');
  return problems;
};

// ---------------------------------------------------------------- clean state between runs

/** Dask's SSHCluster runs `python -m distributed.cli.dask_spec`, which daskRole does not name. */
const isDask = (l: Leftover) =>
  daskRole(l.argv) !== undefined ||
  /distributed\.cli\.dask_spec|multiprocessing\.spawn|from multiprocessing/.test(l.cmdline);

// ---------------------------------------------------------------- the three contenders

/** The `up` process (the controller) at "Cluster up": RSS and its peak in MB, open file descriptors. */
function controllerNow(pid: number): Record<string, number> {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rssMB: kb('VmRSS') / 1024, hwmMB: kb('VmHWM') / 1024, fds: readdirSync(`/proc/${pid}/fd`).length };
  } catch {
    return {};
  }
}

/** The outside client, ready before each contender (bench/lib/observer.ts). */
const watch = (info: TestHosts) => observer(info.hosts[0]!.ip, SCHED_PORT, WORKERS());

interface Result {
  ok: boolean;
  /** SSH exec sessions per host the run opened (scheduler host first). */
  execs?: number[];
  timeout?: boolean;
  error?: string;
  /** Named durations in ms. */
  t: Record<string, number>;
  /** performance.now() when teardown was asked for (SIGINT / close()), to time "hosts clean". */
  stopAt?: number;
  note?: string;
}

async function runSshcluster(info: TestHosts, yaml: string, timeoutMs: number): Promise<Result> {
  const obs = await watch(info);
  obs.go();
  const p = start(process.execPath, [BIN, 'up', '--no-tui', yaml], { ...process.env, NO_COLOR: '1' });
  const up = await p.waitFor(/Cluster up: (\d+) worker\(s\)/, timeoutMs);
  const observed = typeof up === 'object' ? await obs.seen(timeoutMs) : 'no Cluster up';
  await obs.stop();
  if (up === 'timeout' || up === 'exited') {
    if (up === 'timeout') p.child.kill('SIGINT');
    if (!(await closedWithin(p, 30_000))) await killAndWait(p);
    return {
      ok: false,
      timeout: up === 'timeout',
      t: {},
      error:
        up === 'timeout' ? `no "Cluster up" in ${timeoutMs / 1000}s` : `exited before "Cluster up":\n${tail(p.out())}`,
    };
  }
  const tUp = up.at - p.t0;
  const n = Number(up.m[1]);
  const mem = controllerNow(p.child.pid!);
  const addrM = await p.waitFor(/ {2}scheduler: (\S+)\n.*\n {2}eval "\$\(sshcluster env/, 10_000);
  const address = typeof addrM === 'object' ? addrM.m[1]! : `tcp://${info.hosts[0]!.ip}:${SCHED_PORT}`;
  // Not timed: ask the scheduler itself how many workers it has.
  const check = start(PY, [
    '-W',
    'ignore',
    '-c',
    `from distributed import Client\nc = Client(${JSON.stringify(address)}, timeout=30)\nprint("WORKERS", len(c.scheduler_info()["workers"]))\nc.close()`,
  ]);
  const seen = await check.waitFor(/WORKERS (\d+)/, 60_000);
  await closedWithin(check, 30_000);
  await killAndWait(check);
  const workers = typeof seen === 'object' ? Number(seen.m[1]) : undefined;

  const tSig = performance.now();
  p.child.kill('SIGINT');
  const exit = await closedWithin(p, 60_000);
  if (!exit) {
    await killAndWait(p);
    return { ok: false, timeout: true, t: { up: tUp }, error: `no exit within 60s of SIGINT:\n${tail(p.out())}` };
  }
  const t: Record<string, number> = { up: tUp, teardown: exit.at - tSig };
  if (typeof observed === 'number') t.observed = observed - p.t0;
  Object.assign(t, mem);
  if (process.env.BENCH_DEBUG)
    console.log(`--- sshcluster output (SIGINT at +${((tSig - p.t0) / 1000).toFixed(2)}s):\n${p.out()}\n---`);
  const problems: string[] = [];
  if (n !== WORKERS()) problems.push(`"Cluster up: ${n} worker(s)", expected ${WORKERS()}`);
  if (workers !== WORKERS())
    problems.push(
      `scheduler reports ${workers ?? '?'} workers, expected ${WORKERS()}${typeof seen === 'object' ? '' : `:\n${tail(check.out())}`}`,
    );
  if (typeof observed === 'string') problems.push(observed);
  if (exit.code !== 0) problems.push(`exit ${exit.code ?? exit.signal} after SIGINT, expected 0`);
  if (!p.out().includes('verified: no process of this cluster is left on any host'))
    problems.push('no "verified: no process … left" line');
  if (problems.length) return { ok: false, t, error: `${problems.join('; ')}\n${tail(p.out())}` };
  // A stop that needed SIGKILL still ends "verified"; its teardown time is then the grace.
  const forced = /^ {2}killed by force: (.*)$/m.exec(p.out())?.[1];
  return {
    ok: true,
    t,
    stopAt: tSig,
    note: `scheduler sees ${workers} workers${forced ? `; KILLED BY FORCE after the grace: ${forced}` : ''}`,
  };
}

const SSHCLUSTER_PY = String.raw`import time
T0 = time.perf_counter()
import json, sys
cfg = json.loads(sys.argv[1])
from distributed import Client, SSHCluster
T_IMPORT = time.perf_counter()
cluster = SSHCluster(
    hosts=cfg["hosts"],
    connect_options={"known_hosts": cfg["known_hosts"], "client_keys": [cfg["client_key"]], "username": "root"},
    worker_options={"nthreads": cfg["nthreads"], "local_directory": cfg["local_directory"]},
    worker_class="distributed.Nanny" if cfg["nanny"] else "distributed.Worker",
    scheduler_options={"port": cfg["port"], "dashboard_address": cfg["dashboard_address"]},
    remote_python=cfg["remote_python"],
)
client = Client(cluster)
client.wait_for_workers(cfg["workers"])
T_UP = time.perf_counter()
print("BENCH " + json.dumps({"event": "up", "import": T_IMPORT - T0, "up": T_UP - T0}), flush=True)
n = len(client.scheduler_info()["workers"])
print("BENCH " + json.dumps({"event": "closing", "workers": n}), flush=True)
T_C = time.perf_counter()
client.close()
cluster.close()
print("BENCH " + json.dumps({"event": "closed", "close": time.perf_counter() - T_C}), flush=True)
`;

async function runDaskSSHCluster(info: TestHosts, script: string, scratch: string, timeoutMs: number): Promise<Result> {
  const cfg = {
    hosts: benchHosts(info).map((h) => h.ip),
    workers: WORKERS(),
    nanny: SHAPE.nanny,
    known_hosts: info.knownHostsPath,
    client_key: info.clientKeyPath,
    nthreads: SHAPE.nthreads,
    local_directory: scratch,
    port: SCHED_PORT,
    dashboard_address: `:${DASH_PORT}`,
    remote_python: PY,
  };
  const obs = await watch(info);
  obs.go();
  const p = start(PY, [script, JSON.stringify(cfg)]);
  const up = await p.waitFor(/BENCH (\{"event": "up".*\})/, timeoutMs);
  const seen = typeof up === 'object' ? await obs.seen(timeoutMs) : 'not up';
  await obs.stop();
  if (up === 'timeout' || up === 'exited') {
    await killAndWait(p);
    return {
      ok: false,
      timeout: up === 'timeout',
      t: {},
      error:
        up === 'timeout'
          ? `wait_for_workers(${WORKERS()}) not returned in ${timeoutMs / 1000}s:\n${tail(p.out())}`
          : `exited before up:\n${tail(p.out())}`,
    };
  }
  const u = JSON.parse(up.m[1]!) as { import: number; up: number };
  const closing = await p.waitFor(/BENCH (\{"event": "closing".*\})/, 30_000);
  const closeStart = typeof closing === 'object' ? closing.at : performance.now();
  const exit = await closedWithin(p, 60_000);
  const t: Record<string, number> = {
    upScript: u.up * 1000,
    upProcess: up.at - p.t0,
    import: u.import * 1000,
    preScript: up.at - p.t0 - u.up * 1000,
  };
  if (typeof seen === 'number') t.observed = seen - p.t0;
  if (!exit) {
    await killAndWait(p);
    return { ok: false, timeout: true, t, error: `close did not finish within 60s:\n${tail(p.out())}` };
  }
  const closedM = /BENCH (\{"event": "closed".*\})/.exec(p.out());
  if (closedM) t.closeScript = (JSON.parse(closedM[1]!) as { close: number }).close * 1000;
  t.closeProcess = exit.at - closeStart;
  const n = typeof closing === 'object' ? (JSON.parse(closing.m[1]!) as { workers: number }).workers : undefined;
  const problems: string[] = [];
  if (n !== WORKERS()) problems.push(`scheduler reports ${n ?? '?'} workers, expected ${WORKERS()}`);
  if (typeof seen === 'string') problems.push(seen);
  if (exit.code !== 0) problems.push(`python exited ${exit.code ?? exit.signal}`);
  if (!closedM) problems.push('no "closed" line');
  if (problems.length) return { ok: false, t, error: `${problems.join('; ')}\n${tail(p.out())}` };
  return { ok: true, t, stopAt: closeStart, note: `scheduler sees ${n} workers` };
}

async function runPdsh(info: TestHosts, timeoutMs: number): Promise<Result> {
  const ips = benchHosts(info).map((h) => h.ip);
  const env = {
    ...process.env,
    // -F /dev/null: no ~/.ssh/config or /etc/ssh/ssh_config (no ControlMaster reuse etc.).
    PDSH_SSH_ARGS_APPEND: [
      '-F',
      '/dev/null',
      '-i',
      info.clientKeyPath,
      '-o',
      'IdentitiesOnly=yes',
      '-o',
      `UserKnownHostsFile=${info.knownHostsPath}`,
      '-o',
      'GlobalKnownHostsFile=/dev/null',
      '-o',
      'StrictHostKeyChecking=yes',
      '-o',
      'BatchMode=yes',
      '-l',
      'root',
    ].join(' '),
  };
  const p = start('pdsh', ['-R', 'ssh', '-S', '-w', ips.join(','), 'true'], env);
  const exit = await closedWithin(p, timeoutMs);
  if (!exit) {
    await killAndWait(p);
    return { ok: false, timeout: true, t: {}, error: `pdsh still running after ${timeoutMs / 1000}s` };
  }
  const t = { run: exit.at - p.t0 };
  if (exit.code !== 0) return { ok: false, t, error: `pdsh exit ${exit.code ?? exit.signal}:\n${tail(p.out())}` };
  return { ok: true, t };
}

/**
 * The floor: the same processes with the same options, started directly in the namespaces
 * in the order a tool can do no better than: the scheduler, and the workers the moment it
 * listens. Stopped the same way: the workers, and the scheduler once they are gone.
 */
async function runRawFloor(info: TestHosts, scratch: string, timeoutMs: number): Promise<Result> {
  const [s, ...ws] = benchHosts(info);
  const env = { ...process.env, DASK_TEMPORARY_DIRECTORY: scratch };
  const inNs = (ns: string, args: string[]) => start('ip', ['netns', 'exec', ns, PY, '-m', ...args], env);
  const obs = await watch(info);
  obs.go();
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
    listening === 'timeout' || listening === 'exited'
      ? []
      : ws.map((h) =>
          inNs(h.ns, [
            'distributed.cli.dask_worker',
            `tcp://${s!.ip}:${SCHED_PORT}`,
            '--host',
            h.ip,
            '--nthreads',
            String(SHAPE.nthreads),
            SHAPE.nanny ? '--nanny' : '--no-nanny',
          ]),
        );
  const up = workers.length
    ? await sched.waitForCount('Register worker', WORKERS(), Math.max(1, timeoutMs - (performance.now() - t0)))
    : listening;
  const seen = typeof up === 'object' ? await obs.seen(timeoutMs) : 'no third worker';
  await obs.stop();
  const tSig = performance.now();
  const stop = async (ps: typeof workers) => {
    for (const p of ps) p.child.kill('SIGTERM');
    return Promise.all(ps.map((p) => closedWithin(p, 60_000)));
  };
  const exits = [...(await stop(workers)), ...(await stop([sched]))];
  if (exits.some((e) => !e)) {
    await Promise.all([sched, ...workers].map((p) => killAndWait(p)));
    return { ok: false, timeout: true, t: {}, error: `not all exited within 60s of SIGTERM:\n${tail(sched.out())}` };
  }
  if (up === 'timeout' || up === 'exited' || listening === 'timeout' || listening === 'exited') {
    return {
      ok: false,
      timeout: up === 'timeout',
      t: {},
      error: `the scheduler logged no third worker (${up}):\n${tail(sched.out())}${workers[0] ? `\n${tail(workers[0].out())}` : ''}`,
    };
  }
  if (typeof seen === 'string') return { ok: false, t: {}, error: seen };
  const t = { up: up.at - t0, observed: seen - t0, teardown: Math.max(...exits.map((e) => e!.at)) - tSig };
  return { ok: true, t, stopAt: tSig };
}

// ---------------------------------------------------------------- report

interface Series {
  label: string;
  tool: string;
  key: string;
}
const SERIES: Series[] = [
  { label: 'observer: sshcluster spawn -> scheduler lists N workers', tool: 'sshcluster', key: 'observed' },
  { label: 'observer: SSHCluster spawn -> scheduler lists N workers', tool: 'SSHCluster', key: 'observed' },
  { label: 'observer: raw floor spawn -> scheduler lists N workers', tool: 'raw floor', key: 'observed' },
  { label: 'sshcluster up: spawn -> "Cluster up: N worker(s)"', tool: 'sshcluster', key: 'up' },
  { label: 'sshcluster teardown: SIGINT -> exit 0 (verified)', tool: 'sshcluster', key: 'teardown' },
  { label: 'sshcluster teardown: SIGINT -> hosts seen clean', tool: 'sshcluster', key: 'clean' },
  { label: 'SSHCluster up: spawn -> wait_for_workers(N) returns', tool: 'SSHCluster', key: 'upProcess' },
  { label: 'SSHCluster up: in script (perf_counter from line 1)', tool: 'SSHCluster', key: 'upScript' },
  { label: '  of which: interpreter start before line 1', tool: 'SSHCluster', key: 'preScript' },
  { label: '  of which: import distributed (in script)', tool: 'SSHCluster', key: 'import' },
  { label: 'SSHCluster close: client.close()+cluster.close()', tool: 'SSHCluster', key: 'closeScript' },
  { label: 'SSHCluster close -> python process exit', tool: 'SSHCluster', key: 'closeProcess' },
  { label: 'SSHCluster close -> hosts seen clean', tool: 'SSHCluster', key: 'clean' },
  { label: 'pdsh -R ssh -w <all hosts> true', tool: 'pdsh', key: 'run' },
  { label: 'raw floor up: spawn -> scheduler logs Nth worker', tool: 'raw floor', key: 'up' },
  { label: 'raw floor teardown: SIGTERM workers, scheduler -> exited', tool: 'raw floor', key: 'teardown' },
  { label: 'raw floor teardown: SIGTERM -> hosts seen clean', tool: 'raw floor', key: 'clean' },
];
const TOOLS = ['sshcluster', 'SSHCluster', 'pdsh', 'raw floor'];

function report(results: Record<string, Result[]>, header: string[], rounds: number, aborted?: string): boolean {
  const vals = (tool: string, key: string) =>
    (results[tool] ?? [])
      .filter((r) => r.ok)
      .map((r) => r.t[key])
      .filter((v): v is number => v !== undefined);
  const w = Math.max(...SERIES.map((s) => s.label.length), 56);
  const lines: string[] = ['', '='.repeat(w + 34), ...header, ''];
  lines.push(`${'measure'.padEnd(w)}  ${'median'.padStart(8)}  ${'min'.padStart(8)}  ${'max'.padStart(8)}  ok/runs`);
  lines.push('-'.repeat(w + 34));
  for (const s of SERIES) {
    const v = vals(s.tool, s.key);
    const runs = results[s.tool] ?? [];
    lines.push(
      `${s.label.padEnd(w)}  ${fmt(median(v)).padStart(8)}  ${fmt(min(v)).padStart(8)}  ${fmt(v.length ? Math.max(...v) : undefined).padStart(8)}  ${v.length}/${runs.length}`,
    );
  }
  lines.push('-'.repeat(w + 34));
  const ratio = (a: number | undefined, b: number | undefined) =>
    a !== undefined && b !== undefined && b > 0 ? `${(a / b).toFixed(2)}x` : '-';
  const m = (tool: string, key: string) => median(vals(tool, key));
  /** The median of each round's a/b, where both runs of the round passed (the machine's load is shared by the pair). */
  const paired = (a: string, b: string) => {
    const [ra, rb] = [results[a] ?? [], results[b] ?? []];
    const xs = ra.flatMap((r, i) => {
      const [x, y] = [r.ok ? r.t.observed : undefined, rb[i]?.ok ? rb[i]!.t.observed : undefined];
      return x !== undefined && y !== undefined && y > 0 ? [x / y] : [];
    });
    const med = median(xs);
    return med === undefined ? '-' : `${med.toFixed(2)}x`;
  };
  const ratios: [string, string][] = [
    [
      'observer: sshcluster / raw floor (ratio of medians)',
      ratio(m('sshcluster', 'observed'), m('raw floor', 'observed')),
    ],
    ['observer: sshcluster / raw floor (median of per-round ratios)', paired('sshcluster', 'raw floor')],
    [
      'observer: SSHCluster / sshcluster (ratio of medians)',
      ratio(m('SSHCluster', 'observed'), m('sshcluster', 'observed')),
    ],
    ['observer: SSHCluster / sshcluster (median of per-round ratios)', paired('SSHCluster', 'sshcluster')],
    [
      'ratio SSHCluster / sshcluster, up (spawn to ready, both)',
      ratio(m('SSHCluster', 'upProcess'), m('sshcluster', 'up')),
    ],
    [
      'ratio SSHCluster / sshcluster, up (SSHCluster in-script)',
      ratio(m('SSHCluster', 'upScript'), m('sshcluster', 'up')),
    ],
    ['ratio SSHCluster / sshcluster, stop -> hosts clean', ratio(m('SSHCluster', 'clean'), m('sshcluster', 'clean'))],
    ['ratio sshcluster up / pdsh', ratio(m('sshcluster', 'up'), m('pdsh', 'run'))],
    ['ratio sshcluster up / raw floor up', ratio(m('sshcluster', 'up'), m('raw floor', 'up'))],
    ['ratio SSHCluster up (spawn to ready) / raw floor up', ratio(m('SSHCluster', 'upProcess'), m('raw floor', 'up'))],
    ['ratio sshcluster / raw floor, stop -> hosts clean', ratio(m('sshcluster', 'clean'), m('raw floor', 'clean'))],
  ];
  for (const [label, v] of ratios) lines.push(`${label.padEnd(w)}  ${v.padStart(8)}`);
  lines.push('(ratios of medians)');
  for (const tool of ['sshcluster', 'SSHCluster', 'pdsh']) {
    const per = (results[tool] ?? []).filter((r) => r.ok && r.execs).map((r) => execText(r.execs!));
    if (per.length)
      lines.push(
        `${`SSH exec sessions, scheduler host / each worker host, ${tool}`.padEnd(w)}  ${[...new Set(per)].join(', ')}`,
      );
  }
  const clean = shortfallLines(lines, results, TOOLS, rounds, aborted);
  lines.push('='.repeat(w + 34));
  console.log(lines.join('\n'));
  return clean;
}

// ---------------------------------------------------------------- main

async function main(): Promise<number> {
  const { rounds, timeoutMs, own } = parseBenchArgs(process.argv.slice(2), { rounds: 5, timeoutS: 120 }, USAGE, [
    'bashrc',
    'hosts',
    'nthreads',
    'nanny',
  ]);
  SHAPE.hosts = Number(own.hosts ?? SHAPE.hosts);
  SHAPE.nthreads = Number(own.nthreads ?? SHAPE.nthreads);
  SHAPE.nanny = (own.nanny ?? 'on') === 'on';
  if (
    !Number.isInteger(SHAPE.hosts) ||
    SHAPE.hosts < 2 ||
    !Number.isInteger(SHAPE.nthreads) ||
    SHAPE.nthreads < 1 ||
    !['on', 'off', undefined].includes(own.nanny)
  ) {
    console.error(`bench: --hosts expects an integer >= 2, --nthreads one >= 1, --nanny on or off\n${USAGE}`);
    process.exit(2);
  }
  preflight(ownProblems);
  let rcDir: string | undefined;
  process.on('exit', () => rcDir && rmSync(rcDir, { recursive: true, force: true })); // on every way out
  const rc = bashrcFile(own.bashrc, () => (rcDir = mkdtempSync(path.join(os.tmpdir(), 'bench-bashrc-'))));
  const header = machineLines(
    ['dask', 'distributed', 'asyncssh'],
    [
      ['ssh', '-V'],
      ['pdsh', '-V'],
    ],
  );
  header.push(
    `setup: ${SHAPE.hosts} OpenSSH hosts in network namespaces (host 0 scheduler, hosts 1-${WORKERS()} one worker each, nthreads ${SHAPE.nthreads}, ${SHAPE.nanny ? 'nanny' : 'no nanny'}), ${rounds} round(s), per-run timeout ${timeoutMs / 1000}s`,
  );
  header.push(`the login user's ~/.bashrc on the hosts: ${rc.label}`);
  for (const l of header) console.log(l);

  const info = await createTestHosts({ count: SHAPE.hosts, bashrc: rc.file });
  const results: Record<string, Result[]> = Object.fromEntries(TOOLS.map((t) => [t, []]));
  let aborted: string | undefined;
  try {
    if (info.mode !== 'netns')
      throw new BenchAbort(
        'network namespaces unavailable (harness fell back to loopback); this benchmark needs one namespace per host',
      );
    const hosts = info.hosts;
    console.log(`hosts: ${hosts.map((h) => h.ip).join(' ')} (scheduler ${hosts[0]!.ip})`);
    const scratchA = path.join(info.dir, 'dask-scratch-sshcluster');
    const scratchB = path.join(info.dir, 'dask-scratch-SSHCluster');
    const scratchC = path.join(info.dir, 'dask-scratch-raw');
    for (const d of [scratchA, scratchB, scratchC]) mkdirSync(d, { recursive: true });
    const yaml = writeHostsYaml(
      path.join(info.dir, 'bench-hosts.yaml'),
      { ...info, hosts },
      {
        name: 'bench',
        // What a user gets (the harness's 5 s is for its own tests' unreachable hosts):
        // with 129 hosts' handshakes and imports on 2 cores, 5 s was too short for 11.
        connect_options: { connect_timeout: `${DEFAULT_CONNECT_TIMEOUT_MS / 1000}s` },
        env: { DASK_TEMPORARY_DIRECTORY: scratchA },
        scheduler_options: { port: SCHED_PORT, dashboard_address: `:${DASH_PORT}` },
        worker_options: { nthreads: SHAPE.nthreads, nworkers: 1, nanny: SHAPE.nanny },
      },
    );
    const script = path.join(info.dir, 'bench_sshcluster_dask.py');
    writeFileSync(script, SSHCLUSTER_PY);
    if (process.env.BENCH_DEBUG) console.log(readFileSync(yaml, 'utf8'));

    await ensureClean(hosts, 'host creation', isDask);
    for (let round = 1; round <= rounds; round++) {
      // Each contender's SSH exec sessions per host, from the sshd logs around its run.
      const counted = async (run: () => Promise<Result>): Promise<Result> => {
        const before = sessions(info);
        const r = await run();
        return { ...r, execs: sessions(info).map((n, i) => n - before[i]!) };
      };
      const obsText = (r: Result) => (r.t.observed === undefined ? '' : `  observer ${fmt(r.t.observed)}`);
      const contenders: Record<string, () => Promise<void>> = {
        sshcluster: async () => {
          const r1 = await counted(() => runSshcluster(info, yaml, timeoutMs));
          results.sshcluster!.push(r1);
          const w1 = await ensureClean(hosts, `sshcluster round ${round}`, isDask);
          if (r1.ok && r1.stopAt !== undefined) r1.t.clean = w1.at - r1.stopAt;
          const mem =
            r1.t.rssMB === undefined
              ? ''
              : `  [controller at up: RSS ${r1.t.rssMB.toFixed(0)} MB, peak ${r1.t.hwmMB!.toFixed(0)} MB, ${r1.t.fds} fds]`;
          console.log(
            `round ${round}/${rounds} sshcluster  ${r1.ok ? 'ok     ' : r1.timeout ? 'TIMEOUT' : 'FAILED '}${obsText(r1)}  up ${fmt(r1.t.up)}  teardown ${fmt(r1.t.teardown)}${mem}` +
              `${r1.note ? `  (${r1.note})` : ''}  execs ${execText(r1.execs)}  [hosts clean ${fmt(w1.waited)} after exit]${r1.error ? `\n  ${r1.error}` : ''}`,
          );
        },
        SSHCluster: async () => {
          const r2 = await counted(() => runDaskSSHCluster(info, script, scratchB, timeoutMs));
          results.SSHCluster!.push(r2);
          const w2 = await ensureClean(hosts, `SSHCluster round ${round}`, isDask);
          if (r2.ok && r2.stopAt !== undefined) r2.t.clean = w2.at - r2.stopAt;
          console.log(
            `round ${round}/${rounds} SSHCluster  ${r2.ok ? 'ok     ' : r2.timeout ? 'TIMEOUT' : 'FAILED '}${obsText(r2)}  up ${fmt(r2.t.upProcess)} (in script ${fmt(r2.t.upScript)})  close ${fmt(r2.t.closeScript)} (to exit ${fmt(r2.t.closeProcess)})` +
              `${r2.note ? `  (${r2.note})` : ''}  execs ${execText(r2.execs)}  [hosts clean ${fmt(w2.waited)} after exit]${r2.error ? `\n  ${r2.error}` : ''}`,
          );
        },
        pdsh: async () => {
          const r3 = await counted(() => runPdsh(info, timeoutMs));
          results.pdsh!.push(r3);
          const w3 = await ensureClean(hosts, `pdsh round ${round}`, isDask);
          console.log(
            `round ${round}/${rounds} pdsh        ${r3.ok ? 'ok     ' : r3.timeout ? 'TIMEOUT' : 'FAILED '} ${fmt(r3.t.run)}  execs ${execText(r3.execs)}  [hosts clean ${fmt(w3.waited)} after exit]${r3.error ? `\n  ${r3.error}` : ''}`,
          );
        },
        'raw floor': async () => {
          const r4 = await runRawFloor(info, scratchC, timeoutMs);
          results['raw floor']!.push(r4);
          const w4 = await ensureClean(hosts, `raw floor round ${round}`, isDask);
          if (r4.ok && r4.stopAt !== undefined) r4.t.clean = w4.at - r4.stopAt;
          console.log(
            `round ${round}/${rounds} raw floor   ${r4.ok ? 'ok     ' : r4.timeout ? 'TIMEOUT' : 'FAILED '}${obsText(r4)}  up ${fmt(r4.t.up)}  teardown ${fmt(r4.t.teardown)}  [hosts clean ${fmt(w4.waited)} after exit]${r4.error ? `\n  ${r4.error}` : ''}`,
          );
        },
      };
      // The order turns each round, so no contender always follows the same one.
      const order = ['sshcluster', 'raw floor', 'SSHCluster', 'pdsh'];
      for (let k = 0; k < order.length; k++) await contenders[order[(k + round - 1) % order.length]!]!();
    }
  } catch (err) {
    if (!(err instanceof BenchAbort)) throw err;
    aborted = err.message;
  } finally {
    killChildren();
    await info.teardown();
  }
  return report(results, header, rounds, aborted) ? 0 : 1;
}

runMain(main);
