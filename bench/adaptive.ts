// Benchmark: adaptive scaling under 60 one-second tasks, 0 -> 3 -> 0 workers.
//
//   sudo npx tsx bench/adaptive.ts [--rounds N] [--timeout SECONDS]
//
// Compares, with the same workload, the same knobs (minimum 0, maximum 3, interval 1s,
// wait_count 3, target_duration 5s; 2-thread workers with a nanny) and the same
// measuring client, alternating which goes first round by round:
//   1. `sshcluster up HOSTS.yaml --detach --adapt --min 0 --max 3` on 4 OpenSSH hosts
//      (one Linux network namespace each, made by the e2e harness): scheduler on host 0,
//      at most one worker on each of hosts 1-3;
//   2. Dask's own Adaptive: `LocalCluster(n_workers=0, threads_per_worker=2,
//      processes=True)` + `cluster.adapt(...)` on this machine (Dask's SSHCluster cannot
//      adapt: dask/dask#6361).
// One `/usr/bin/python3` client script measures both: from the submit of
// `c.map(lambda x: (time.sleep(1), x)[1], range(60))`, (a) the first worker registered,
// (b) 3 workers registered, (c) all results back; then (d) from the last result until
// back to 0 workers. See bench/README.md for what each figure means.
// The Python it runs is in bench/py/. Over 200 lines: one whole experiment (hosts, two
// contenders, leftover checks, the report); what benchmarks share is in bench/lib/.
import {
  BenchAbort,
  closedWithin,
  fmt,
  killAndWait,
  killChildren,
  median,
  min,
  parseBenchArgs,
  procStat,
  runMain,
  shortfallLines,
  sleep,
  start,
  tail,
} from './lib/proc.js';
import {
  BIN,
  DASH_PORT,
  ensureClean,
  machineLines,
  onSignals,
  preflight,
  PY,
  runSync,
  SCHED_PORT,
} from './lib/hosts.js';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createTestHosts, daskProcessesIn, writeHostsYaml, type TestHosts } from '../test/e2e/harness/netns-hosts.js';

const NTHREADS = 2;
const MAX = 3;
const NTASKS = 60;
const NAME = 'bench-adapt';

// ---------------------------------------------------------------- arguments

const parseArgs = (argv: string[]) =>
  parseBenchArgs(
    argv,
    { rounds: 3, timeoutS: 180 },
    'usage: npx tsx bench/adaptive.ts [--rounds N] [--timeout SECONDS]\n' +
      '  --rounds N         rounds of (sshcluster, Dask Adaptive), alternating which goes first; default 3\n' +
      '  --timeout SECONDS  per-run limit from the submit until back to 0 workers, default 180\n' +
      'Needs root (network namespaces), sshd, iproute2, python3-distributed.',
  );

// ---------------------------------------------------------------- small helpers

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** State directory of the bench's own sshcluster clusters (XDG_STATE_HOME). */
let stateHome = '';
/** Set while an sshcluster cluster may be up: an interrupted bench downs it first. */
let clusterUp = false;
const cliEnv = () => ({ ...process.env, NO_COLOR: '1', XDG_STATE_HOME: stateHome });

function emergencyDown(): void {
  if (!clusterUp) return;
  clusterUp = false;
  const st = spawnSync(process.execPath, [BIN, 'status', '--name', NAME, '--json'], {
    env: cliEnv(),
    encoding: 'utf8',
    timeout: 15_000,
  });
  let controllerPid: number | undefined;
  try {
    controllerPid = (JSON.parse(st.stdout) as { controllerPid?: number }).controllerPid;
  } catch {
    /* no state */
  }
  spawnSync(process.execPath, [BIN, 'down', '--name', NAME], { env: cliEnv(), stdio: 'ignore', timeout: 60_000 });
  if (controllerPid && alive(controllerPid)) {
    try {
      process.kill(controllerPid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
}

onSignals(emergencyDown);

/** Runs the CLI without blocking the event loop (so the bench's own polls go on). */
async function cli(
  args: string[],
  timeoutMs = 120_000,
): Promise<{ code: number | null; out: string; stdout: string; ms: number }> {
  const p = start(process.execPath, [BIN, ...args], cliEnv());
  const exit = await closedWithin(p, timeoutMs);
  if (!exit) {
    await killAndWait(p);
    return {
      code: null,
      out: `${p.out()}\n(killed after ${timeoutMs / 1000}s)`,
      stdout: p.out(),
      ms: performance.now() - p.t0,
    };
  }
  return { code: exit.code, out: p.out(), stdout: p.out(), ms: exit.at - p.t0 };
}

// ---------------------------------------------------------------- pre-flight

const ownProblems = (): string[] => {
  const problems: string[] = [];
  if (!runSync(PY, ['-c', 'import distributed, psutil']).ok)
    problems.push(`${PY} has no distributed: apt-get install -y python3-distributed`);
  if (!runSync('ip', ['-V']).ok) problems.push('ip not found: apt-get install -y iproute2');
  return problems;
};

// ---------------------------------------------------------------- processes

interface LocalProc {
  pid: number;
  ppid: number;
  cmdline: string;
}

/** Every descendant of `root` (by /proc/PID/stat's ppid), read straight from /proc. */
function descendants(root: number): LocalProc[] {
  const all: LocalProc[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const ppid = Number(procStat(d)[1]);
      const cmdline = readFileSync(`/proc/${d}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      all.push({ pid: Number(d), ppid, cmdline });
    } catch {
      /* exited meanwhile */
    }
  }
  const out: LocalProc[] = [];
  const want = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const p of all) {
      if (want.has(p.ppid) && !want.has(p.pid)) {
        want.add(p.pid);
        out.push(p);
        grew = true;
      }
    }
  }
  return out;
}
/** A Dask worker (or nanny-spawned) process of LocalCluster: multiprocessing's spawn. */
const isSpawnedWorker = (p: LocalProc) => /multiprocessing\.spawn|spawn_main/.test(p.cmdline);

/** A PID we saw is still the process we saw (not a reused PID) when its cmdline matches. */
function stillThere(p: LocalProc): boolean {
  try {
    return readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim() === p.cmdline;
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------- the measuring client (both contenders)

const CLIENT_PY = fileURLToPath(new URL('./py/adaptive_client.py', import.meta.url));

// Dask's own Adaptive, in a process of its own (like sshcluster's controller), until stdin closes.
const LOCAL_PY = fileURLToPath(new URL('./py/adaptive_localcluster.py', import.meta.url));

// ---------------------------------------------------------------- one run

interface Result {
  ok: boolean;
  timeout?: boolean;
  error?: string;
  /** Named durations in ms. */
  t: Record<string, number>;
  note?: string;
}

interface Done {
  first: number | null;
  target: number | null;
  results: number;
  zero: number | null;
  peak: number;
  polls: number;
  errors: number;
}

/**
 * Runs the measuring client against `address`. `gone` is polled (about every 100 ms)
 * from the moment the results line arrives and must return true once the contender's
 * worker processes are all gone; its time counts into (d) with the scheduler's 0.
 */
async function measure(
  address: string,
  deadline: number,
  gone: () => Promise<boolean> | boolean,
  script: string,
): Promise<Result> {
  const cfg = { address, timeout: Math.max(10, (deadline - performance.now()) / 1000), ntasks: NTASKS, max: MAX };
  const p = start(PY, ['-W', 'ignore', script, JSON.stringify(cfg)]);
  const left = () => Math.max(0, deadline - performance.now());
  const res = await p.waitFor(/BENCH (\{"event": "results".*\})/, left());
  if (typeof res !== 'object') {
    await killAndWait(p);
    return {
      ok: false,
      timeout: res === 'timeout',
      t: {},
      error:
        res === 'timeout'
          ? `no results within the time limit:\n${tail(p.out())}`
          : `client exited before the results:\n${tail(p.out())}`,
    };
  }
  const r = JSON.parse(res.m[1]!) as { results: number; wall: number; ok: boolean };
  // The processes: polled here, timed on the wall clock against the client's last result.
  let goneAt: number | undefined;
  while (performance.now() < deadline) {
    if (await gone()) {
      goneAt = Date.now() - r.wall * 1000;
      break;
    }
    await sleep(100);
  }
  const done = await p.waitFor(/BENCH (\{"event": "done".*\})/, left() + 5_000);
  const exit = await closedWithin(p, 30_000);
  if (!exit) await killAndWait(p);
  if (typeof done !== 'object')
    return { ok: false, timeout: true, t: { results: r.results * 1000 }, error: `no "done" line:\n${tail(p.out())}` };
  const d = JSON.parse(done.m[1]!) as Done;
  const t: Record<string, number> = { results: d.results * 1000 };
  if (d.first !== null) t.first = d.first * 1000;
  if (d.target !== null) t.target = d.target * 1000;
  if (d.zero !== null) t.sched0 = d.zero * 1000;
  if (goneAt !== undefined) t.gone = goneAt;
  if (d.zero !== null && goneAt !== undefined) t.min = Math.max(d.zero * 1000, goneAt);
  const problems: string[] = [];
  if (!r.ok) problems.push('wrong sum of results');
  if (d.peak !== MAX) problems.push(`peak ${d.peak} workers, expected ${MAX}`);
  if (d.zero === null) problems.push('the scheduler never listed 0 workers after the last result');
  if (goneAt === undefined) problems.push('worker processes not gone in time');
  if (exit && exit.code !== 0) problems.push(`client exited ${exit.code ?? exit.signal}`);
  const timeout = d.zero === null || goneAt === undefined;
  if (problems.length) return { ok: false, timeout, t, error: `${problems.join('; ')}\n${tail(p.out())}` };
  return { ok: true, t, note: `peak ${d.peak}, ${d.polls} polls${d.errors ? `, ${d.errors} failed` : ''}` };
}

interface Status {
  controllerPid: number;
  schedulerAddress: string;
  workers: { name: string; state: string; pid: number | null }[];
  adaptive: { enabled: boolean } | null;
}

async function runSshcluster(info: TestHosts, yaml: string, clientPy: string, timeoutMs: number): Promise<Result> {
  const hosts = info.hosts;
  clusterUp = true;
  const up = await cli(
    ['up', yaml, '--name', NAME, '--detach', '--adapt', '--min', '0', '--max', String(MAX)],
    120_000,
  );
  if (up.code !== 0)
    return { ok: false, timeout: up.code === null, t: {}, error: `up --detach exited ${up.code}:\n${tail(up.out)}` };
  const st0r = await cli(['status', '--name', NAME, '--json'], 30_000);
  let st0: Status;
  try {
    st0 = JSON.parse(st0r.stdout) as Status;
  } catch {
    return { ok: false, t: { setup: up.ms }, error: `status --json: ${tail(st0r.out)}` };
  }
  let r: Result;
  if (!st0.adaptive?.enabled) r = { ok: false, t: {}, error: 'adaptive not enabled after up --adapt' };
  else if (st0.workers.some((w) => w.state !== 'stopped'))
    r = { ok: false, t: {}, error: `workers alive before the submit: ${JSON.stringify(st0.workers)}` };
  else {
    const statusMs: number[] = [];
    r = await measure(
      st0.schedulerAddress,
      performance.now() + timeoutMs,
      async () => {
        if (hosts.slice(1).some((h) => daskProcessesIn(h).length > 0)) return false;
        const s = await cli(['status', '--name', NAME, '--json'], 30_000);
        statusMs.push(s.ms);
        try {
          return (JSON.parse(s.stdout) as Status).workers.every((w) => w.state === 'stopped');
        } catch {
          return false;
        }
      },
      clientPy,
    );
    if (statusMs.length)
      r.note = [
        r.note,
        `status --json polled ${statusMs.length}x, ~${fmt(statusMs.reduce((x, y) => x + y, 0) / statusMs.length)} each`,
      ]
        .filter(Boolean)
        .join(', ');
  }
  r.t.setup = up.ms;
  // Down, then: the controller gone, and nothing but sshd in any namespace.
  const down = await cli(['down', '--name', NAME], 120_000);
  clusterUp = false;
  r.t.down = down.ms;
  if (down.code !== 0) {
    r.ok = false;
    r.error = `${r.error ? `${r.error}\n` : ''}down exited ${down.code}:\n${tail(down.out)}`;
  }
  const t0 = performance.now();
  while (alive(st0.controllerPid) && performance.now() - t0 < 30_000) await sleep(100);
  if (alive(st0.controllerPid)) {
    try {
      process.kill(st0.controllerPid, 'SIGKILL');
    } catch {
      /* gone */
    }
    throw new BenchAbort(`controller pid ${st0.controllerPid} still running 30s after down; killed it by PID`);
  }
  await ensureClean(hosts, 'sshcluster down');
  return r;
}

async function runDaskAdaptive(localPy: string, clientPy: string, scratch: string, timeoutMs: number): Promise<Result> {
  const runner = start(
    PY,
    ['-W', 'ignore', localPy, JSON.stringify({ nthreads: NTHREADS, max: MAX })],
    { ...process.env, DASK_TEMPORARY_DIRECTORY: scratch },
    'pipe',
  );
  const upM = await runner.waitFor(/BENCH (\{"event": "up".*\})/, 60_000);
  if (typeof upM !== 'object') {
    await killAndWait(runner);
    return { ok: false, timeout: upM === 'timeout', t: {}, error: `LocalCluster not up:\n${tail(runner.out())}` };
  }
  const setup = upM.at - runner.t0;
  const pid = runner.child.pid!;
  // Every descendant we ever see, to check by PID that none outlives the run.
  const seen = new Map<number, LocalProc>();
  const look = () => {
    const ds = descendants(pid);
    for (const d of ds) seen.set(d.pid, d);
    return ds;
  };
  const watcher = setInterval(look, 500);
  let r: Result;
  try {
    const address = (JSON.parse(upM.m[1]!) as { address: string }).address;
    r = await measure(address, performance.now() + timeoutMs, () => !look().some(isSpawnedWorker), clientPy);
  } finally {
    clearInterval(watcher);
  }
  look();
  r.t.setup = setup;
  const tc = performance.now();
  runner.child.stdin!.end();
  const exit = await closedWithin(runner, 60_000);
  r.t.down = performance.now() - tc;
  if (!exit) {
    await killAndWait(runner);
    r.ok = false;
    r.error = `${r.error ? `${r.error}\n` : ''}LocalCluster runner did not exit within 60s of stdin closing`;
  } else if (exit.code !== 0) {
    r.ok = false;
    r.error = `${r.error ? `${r.error}\n` : ''}LocalCluster runner exited ${exit.code ?? exit.signal}:\n${tail(runner.out())}`;
  }
  const t0 = performance.now();
  let left = [...seen.values()].filter(stillThere);
  while (left.length && performance.now() - t0 < 30_000) {
    await sleep(100);
    left = left.filter(stillThere);
  }
  if (left.length) {
    console.error(
      `\n!!! LEAK after Dask Adaptive: still there 30s after the runner exited:\n  ${left.map((l) => `pid ${l.pid}: ${l.cmdline.slice(0, 160)}`).join('\n  ')}`,
    );
    for (const l of left) {
      try {
        process.kill(l.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    throw new BenchAbort(`LocalCluster processes left behind (${left.length}); killed them by PID`);
  }
  r.note = [r.note, `${seen.size} child process(es) seen, all gone`].filter(Boolean).join(', ');
  return r;
}

// ---------------------------------------------------------------- report

const TOOLS = ['sshcluster', 'Dask Adaptive'] as const;
const MEASURES: { key: string; label: string }[] = [
  { key: 'first', label: '(a) submit -> first worker registered' },
  { key: 'target', label: '(b) submit -> 3 workers registered' },
  { key: 'results', label: '(c) submit -> all 60 results back' },
  { key: 'min', label: '(d) last result -> 0 workers (scheduler + processes)' },
  { key: 'sched0', label: '    of which: scheduler lists 0 workers' },
  { key: 'gone', label: '    of which: worker processes gone' },
  { key: 'setup', label: 'not timed above: start (up --detach / LocalCluster)' },
  { key: 'down', label: 'not timed above: stop (down / cluster.close())' },
];

function report(results: Record<string, Result[]>, header: string[], rounds: number, aborted?: string): boolean {
  const vals = (tool: string, key: string) =>
    (results[tool] ?? [])
      .filter((r) => r.ok)
      .map((r) => r.t[key])
      .filter((v): v is number => v !== undefined);
  const w = Math.max(...MEASURES.map((s) => s.label.length));
  const col = (s: string) => s.padStart(8);
  const width = w + 2 + 2 * (3 * 10) + 12;
  const lines: string[] = ['', '='.repeat(width), ...header, ''];
  lines.push(`${''.padEnd(w)}  ${'sshcluster'.padEnd(28)}  ${'Dask Adaptive'.padEnd(28)}  ratio`);
  lines.push(
    `${'measure'.padEnd(w)}  ${col('median')}  ${col('min')}  ${col('ok/runs')}  ${col('median')}  ${col('min')}  ${col('ok/runs')}  ${col('median')}  ${col('min')}`,
  );
  lines.push('-'.repeat(width));
  const ratio = (a: number | undefined, b: number | undefined) =>
    a !== undefined && b !== undefined && b > 0 ? `${(a / b).toFixed(2)}x` : '-';
  for (const m of MEASURES) {
    const a = vals('sshcluster', m.key);
    const b = vals('Dask Adaptive', m.key);
    const n = (tool: string, v: number[]) => `${v.length}/${(results[tool] ?? []).length}`;
    lines.push(
      `${m.label.padEnd(w)}  ${col(fmt(median(a)))}  ${col(fmt(min(a)))}  ${col(n('sshcluster', a))}  ${col(fmt(median(b)))}  ${col(fmt(min(b)))}  ${col(n('Dask Adaptive', b))}  ${col(ratio(median(a), median(b)))}  ${col(ratio(min(a), min(b)))}`,
    );
  }
  lines.push('-'.repeat(width));
  lines.push('ratio = sshcluster / Dask Adaptive (of medians, of mins); below 1 means sshcluster is faster');
  const clean = shortfallLines(lines, results, TOOLS, rounds, aborted);
  lines.push('='.repeat(width));
  console.log(lines.join('\n'));
  return clean;
}

function line(round: number, rounds: number, tool: string, r: Result): string {
  const status = r.ok ? 'ok     ' : r.timeout ? 'TIMEOUT' : 'FAILED ';
  return (
    `round ${round}/${rounds} ${tool.padEnd(13)} ${status} (a) ${fmt(r.t.first)}  (b) ${fmt(r.t.target)}  (c) ${fmt(r.t.results)}  (d) ${fmt(r.t.min)} ` +
    `[sched 0 ${fmt(r.t.sched0)}, procs gone ${fmt(r.t.gone)}]  start ${fmt(r.t.setup)} stop ${fmt(r.t.down)}${r.note ? `  (${r.note})` : ''}${r.error ? `\n  ${r.error}` : ''}`
  );
}

// ---------------------------------------------------------------- main

async function main(): Promise<number> {
  const { rounds, timeoutMs } = parseArgs(process.argv.slice(2));
  preflight(ownProblems);
  const header = machineLines(['dask', 'distributed', 'tornado'], [['ssh', '-V']]);
  header.push(
    `workload: ${NTASKS} one-second tasks from one client; adaptive min 0 max ${MAX}, interval 1s, wait_count 3, target_duration 5s; workers ${NTHREADS} threads + nanny`,
  );
  header.push(
    `sshcluster: 4 OpenSSH hosts in network namespaces (host 0 scheduler, hosts 1-3 at most one worker each); Dask Adaptive: LocalCluster on this machine`,
  );
  header.push(`${rounds} round(s), alternating which goes first; per-run timeout ${timeoutMs / 1000}s`);
  for (const l of header) console.log(l);

  const info = await createTestHosts({ count: 4 });
  stateHome = mkdtempSync(path.join(os.tmpdir(), 'sshc-bench-state-'));
  const results: Record<string, Result[]> = { sshcluster: [], 'Dask Adaptive': [] };
  let aborted: string | undefined;
  try {
    if (info.mode !== 'netns')
      throw new BenchAbort(
        'network namespaces unavailable (harness fell back to loopback); this benchmark needs one namespace per host',
      );
    const hosts = info.hosts;
    console.log(`hosts: ${hosts.map((h) => h.ip).join(' ')} (scheduler ${hosts[0]!.ip}); state in ${stateHome}`);
    const scratchA = path.join(info.dir, 'dask-scratch-sshcluster');
    const scratchB = path.join(info.dir, 'dask-scratch-local');
    mkdirSync(scratchA, { recursive: true });
    mkdirSync(scratchB, { recursive: true });
    const yaml = writeHostsYaml(
      path.join(info.dir, 'bench-adapt.yaml'),
      { ...info, hosts },
      {
        name: NAME,
        env: { DASK_TEMPORARY_DIRECTORY: scratchA },
        scheduler_options: { port: SCHED_PORT, dashboard_address: `:${DASH_PORT}` },
        worker_options: { nthreads: NTHREADS, nworkers: 1, nanny: true },
        adaptive: { minimum: 0, maximum: MAX, interval: '1s', wait_count: 3, target_duration: '5s' },
      },
    );
    const clientPy = path.join(info.dir, 'bench_adapt_client.py');
    const localPy = path.join(info.dir, 'bench_adapt_localcluster.py');
    copyFileSync(CLIENT_PY, clientPy);
    copyFileSync(LOCAL_PY, localPy);
    if (process.env.BENCH_DEBUG) console.log(readFileSync(yaml, 'utf8'));

    await ensureClean(hosts, 'host creation');
    for (let round = 1; round <= rounds; round++) {
      const order = round % 2 === 1 ? TOOLS : ([...TOOLS].reverse() as unknown as typeof TOOLS);
      for (const tool of order) {
        const r =
          tool === 'sshcluster'
            ? await runSshcluster(info, yaml, clientPy, timeoutMs)
            : await runDaskAdaptive(localPy, clientPy, scratchB, timeoutMs);
        results[tool]!.push(r);
        console.log(line(round, rounds, tool, r));
      }
    }
  } catch (err) {
    if (!(err instanceof BenchAbort)) throw err;
    aborted = err.message;
  } finally {
    killChildren();
    emergencyDown();
    await info.teardown();
    rmSync(stateHome, { recursive: true, force: true });
  }
  return report(results, header, rounds, aborted) ? 0 : 1;
}

runMain(main);
