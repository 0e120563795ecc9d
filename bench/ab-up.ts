// Benchmark: this checkout's `up` against another build of sshcluster (a baseline
// commit), on the same 4 SSH hosts, alternating run by run: did a change make `up`
// faster?
//
//   sudo npx tsx bench/ab-up.ts --baseline DIR [--rounds N] [--timeout SECONDS]
//                               [--bashrc empty|slow|FILE] [--scheduler-setup CMD]
//
// DIR is another checkout, built (`git worktree add /tmp/base COMMIT && cd /tmp/base &&
// npm ci && npm run build`). Each run: `DIR/bin/sshcluster up --no-tui HOSTS.yaml`, timed
// from spawn to "Cluster up: 3 worker(s)", then SIGINT, which must exit 0 with its
// "verified" line. From the run's Dask logs (timestamps, one clock: the hosts are
// namespaces of this machine) it also reads when the scheduler listened, and how long
// after that the last nanny registered and the last worker.
// --scheduler-setup CMD puts CMD in the scheduler host's `setup:` (e.g. `sleep 0.5`: a
// scheduler host slower to log in, or a scheduler slower to import, as with bokeh).
// One warm-up run of each (the V8 code cache, the hosts' installed programs) is not counted.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  BenchAbort,
  closedWithin,
  fmt,
  killAndWait,
  median,
  parseBenchArgs,
  runMain,
  start,
  tail,
} from './lib/proc.js';
import { bashrcFile, BIN, machineLines, onSignals, preflight, ROOT, runSync } from './lib/hosts.js';
import { createTestHosts, writeHostsYaml } from '../test/e2e/harness/netns-hosts.js';

const USAGE =
  'usage: sudo npx tsx bench/ab-up.ts --baseline DIR [--rounds N] [--timeout SECONDS] [--bashrc empty|slow|FILE] [--scheduler-setup CMD]\n' +
  '  --baseline DIR         another built checkout of sshcluster (DIR/bin/sshcluster, DIR/dist/main.cjs)\n' +
  '  --rounds N             alternating pairs of runs, default 10 (plus one warm-up of each)\n' +
  "  --bashrc WHICH         the hosts' ~/.bashrc: empty (default), slow (`sleep 0.3`) or a FILE\n" +
  "  --scheduler-setup CMD  a `setup:` line for the scheduler's host only, e.g. 'sleep 0.5'";

const HOSTS = 4;
const NAME = 'ab';

interface Run {
  /** spawn -> "Cluster up", ms. */
  up: number;
  /** From the Dask logs, ms after the scheduler listened: the last nanny and worker registered. */
  nanny: number;
  worker: number;
  /** spawn -> the scheduler listened, and the last worker registered -> "Cluster up", ms (wall clock). */
  listen: number;
  seen: number;
}

/** Milliseconds since the epoch of a Dask log line ("2026-11-26 10:19:14,614 - …"), in local time as the hosts log it. */
function stamp(line: string): number {
  const m = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d),(\d{3})/.exec(line);
  if (!m) return NaN;
  const [y, mo, d, h, mi, s, ms] = m.slice(1).map(Number) as [number, number, number, number, number, number, number];
  return new Date(y, mo - 1, d, h, mi, s, ms).getTime();
}

/** The lags of the newest run's logs under `stateHome`. */
function lags(stateHome: string): { nanny: number; worker: number; listened: number; lastWorker: number } {
  const logs = path.join(stateHome, 'sshcluster', NAME, 'logs');
  const run = readdirSync(logs).sort().at(-1);
  if (!run) throw new BenchAbort(`no logs under ${logs}`);
  const lines = readdirSync(path.join(logs, run)).flatMap((f) =>
    readFileSync(path.join(logs, run, f), 'utf8').split('\n'),
  );
  const at = (re: RegExp) => lines.filter((l) => re.test(l)).map(stamp);
  const listened = at(/Scheduler at:/)[0];
  const nannies = at(/Start Nanny at:/);
  const workers = at(/Register worker/);
  if (listened === undefined || nannies.length < HOSTS - 1 || workers.length < HOSTS - 1) {
    const files = readdirSync(path.join(logs, run)).map(
      (f) => `${f} (${readFileSync(path.join(logs, run, f), 'utf8').split('\n').length - 1} lines)`,
    );
    throw new BenchAbort(
      `run ${run}: the logs lack the scheduler's start or ${HOSTS - 1} nannies and workers (scheduler at: ${listened === undefined ? 'none' : 'yes'}, nannies ${nannies.length}, workers registered ${workers.length}; runs ${readdirSync(logs).sort().join(' ')}; files ${files.join(', ')})`,
    );
  }
  return {
    nanny: Math.max(...nannies) - listened,
    worker: Math.max(...workers) - listened,
    listened,
    lastWorker: Math.max(...workers),
  };
}

async function runUp(bin: string, yaml: string, stateHome: string, timeoutMs: number): Promise<Run> {
  const p = start(process.execPath, [bin, 'up', '--no-tui', yaml], {
    ...process.env,
    NO_COLOR: '1',
    XDG_STATE_HOME: stateHome,
  });
  const spawned = Date.now() - (performance.now() - p.t0);
  const up = await p.waitFor(/Cluster up: (\d+) worker\(s\)/, timeoutMs);
  if (up === 'timeout' || up === 'exited') {
    await killAndWait(p, 'SIGINT');
    if (!(await closedWithin(p, 30_000))) await killAndWait(p);
    throw new BenchAbort(
      `${bin}: ${up === 'timeout' ? `no "Cluster up" in ${timeoutMs / 1000}s` : 'exited before "Cluster up"'}:\n${tail(p.out())}`,
    );
  }
  p.child.kill('SIGINT');
  const exit = await closedWithin(p, 60_000);
  if (!exit || exit.code !== 0 || !/verified: no process of this cluster is left/.test(p.out())) {
    await killAndWait(p);
    throw new BenchAbort(
      `${bin}: the stop did not end verified (exit ${exit ? exit.code : 'none in 60 s'}):\n${tail(p.out())}`,
    );
  }
  const { listened, lastWorker, ...lag } = lags(stateHome);
  const upWall = spawned + (up.at - p.t0);
  return { up: up.at - p.t0, ...lag, listen: listened - spawned, seen: upWall - lastWorker };
}

async function main(): Promise<number> {
  const { rounds, timeoutMs, own } = parseBenchArgs(process.argv.slice(2), { rounds: 10, timeoutS: 120 }, USAGE, [
    'baseline',
    'bashrc',
    'scheduler-setup',
  ]);
  const baseline = own.baseline && path.resolve(own.baseline);
  if (!baseline) {
    console.error(`bench: --baseline DIR is required\n${USAGE}`);
    return 2;
  }
  preflight(() =>
    existsSync(path.join(baseline, 'bin/sshcluster')) && existsSync(path.join(baseline, 'dist/main.cjs'))
      ? []
      : [`${baseline}: no built sshcluster there (bin/sshcluster, dist/main.cjs): npm ci && npm run build in it`],
  );
  const commit = (dir: string) => runSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD']).out || '?';
  const contenders = [
    { label: `baseline ${commit(baseline)}`, bin: path.join(baseline, 'bin/sshcluster') },
    { label: `this ${commit(ROOT)}`, bin: BIN },
  ];
  let dir: string | undefined; // made once the input is good
  const mkScratch = () => (dir ??= mkdtempSync(path.join(os.tmpdir(), 'sshc-ab-')));
  const rc = bashrcFile(own.bashrc ?? 'empty', mkScratch);
  const scratch = mkScratch();
  console.log(machineLines(['distributed']).join('\n'));
  console.log(
    `setup: ${HOSTS} OpenSSH hosts in network namespaces (host 0 scheduler, hosts 1-3 one worker each, nthreads 2, nanny), plain TCP, ~/.bashrc ${rc.label}, scheduler host setup: ${own['scheduler-setup'] ?? 'none'}, ${rounds} round(s) after one warm-up`,
  );

  onSignals();
  const info = await createTestHosts({ count: HOSTS, bashrc: rc.file });
  try {
    if (info.mode !== 'netns')
      throw new BenchAbort('network namespaces unavailable; this benchmark needs one namespace per host');
    const [first, ...rest] = info.hosts.map((h) => h.ip);
    const setup = own['scheduler-setup'];
    const yaml = writeHostsYaml(path.join(info.dir, 'ab-hosts.yaml'), info, {
      name: NAME,
      env: { DASK_TEMPORARY_DIRECTORY: path.join(info.dir, 'scratch') },
      scheduler_options: { port: 8786, dashboard_address: ':8787' },
      worker_options: { nthreads: 2, nworkers: 1, nanny: true },
      hosts: [setup ? { host: first, setup: [setup] } : first, ...rest],
    });
    const homes = contenders.map(() => mkdtempSync(path.join(scratch, 'state-')));
    const runs: Run[][] = contenders.map(() => []);
    for (let round = 0; round <= rounds; round++) {
      const order = round % 2 ? [1, 0] : [0, 1];
      for (const i of order) {
        const r = await runUp(contenders[i]!.bin, yaml, homes[i]!, timeoutMs);
        if (round === 0) continue;
        runs[i]!.push(r);
        console.log(
          `round ${round}/${rounds} ${contenders[i]!.label.padEnd(20)} up ${fmt(r.up)}  scheduler listened at ${Math.round(r.listen)} ms; after that: last nanny ${r.nanny} ms, last worker ${r.worker} ms; "Cluster up" ${Math.round(r.seen)} ms after the last worker registered`,
        );
      }
    }
    console.log(
      '\nmedians                       up      listened   last nanny   last worker (ms after it listened)   seen (ms after the last worker)',
    );
    for (const [i, c] of contenders.entries()) {
      const m = (f: keyof Run) => median(runs[i]!.map((r) => r[f]))!;
      console.log(
        `${c.label.padEnd(28)}  ${fmt(m('up'))}   ${String(Math.round(m('listen'))).padStart(6)}     ${String(Math.round(m('nanny'))).padStart(6)}       ${String(Math.round(m('worker'))).padStart(6)}                          ${String(Math.round(m('seen'))).padStart(6)}   (up ${fmt(Math.min(...runs[i]!.map((r) => r.up)))}-${fmt(Math.max(...runs[i]!.map((r) => r.up)))})`,
      );
    }
    const ratio = median(runs[1]!.map((r) => r.up))! / median(runs[0]!.map((r) => r.up))!;
    console.log(`ratio this / baseline, up: ${ratio.toFixed(2)}x`);
    return 0;
  } finally {
    await info.teardown();
    rmSync(scratch, { recursive: true, force: true });
  }
}

runMain(main);
