// What the namespace-host benchmarks share: paths, the pre-flight and machine lines, the
// hosts' ~/.bashrc, the signal hooks, and the check that every round leaves the hosts clean.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { processesIn, runIn, type TestHost } from '../../test/e2e/harness/netns-hosts.js';
import { BenchAbort, killChildren, sleep } from './proc.js';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const BIN = path.join(ROOT, 'bin/sshcluster');
export const PY = '/usr/bin/python3';
export const SCHED_PORT = 8786;
export const DASH_PORT = 8787;

export function runSync(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
  timeout = 60_000,
): { ok: boolean; code: number | null; stdout: string; out: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout, env });
  return {
    ok: r.status === 0,
    code: r.status,
    stdout: r.stdout ?? '',
    out: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}`.trim(),
  };
}

/** The checks every namespace bench needs, plus the bench's own; exits 2 listing what is missing. */
export function preflight(own: () => string[]): void {
  const problems: string[] = [];
  if (process.getuid?.() !== 0) problems.push('must run as root (the test hosts are network namespaces + sshd)');
  if (!existsSync(MAIN)) problems.push('sshcluster is not built: npm run build');
  if (!existsSync('/usr/sbin/sshd')) problems.push('sshd not found: apt-get install -y openssh-server');
  if (!existsSync(PY)) problems.push(`${PY} not found`);
  else problems.push(...own());
  if (problems.length) {
    console.error(`bench: cannot run:\n  ${problems.join('\n  ')}`);
    process.exit(2);
  }
}

/** The header lines: machine, software (`pyModules` versions, then `tools`' first lines), commit. */
export function machineLines(pyModules: string[], tools: string[][] = []): string[] {
  const py = runSync(PY, [
    '-W',
    'ignore',
    '-c',
    `import sys, ${pyModules.join(', ')}\nprint(sys.version.split()[0], ${pyModules.map((m) => `getattr(${m}, '__version__', getattr(${m}, 'version', '?'))`).join(', ')})`,
  ]);
  const [pyv, ...versions] = py.out.split('\n').pop()!.split(' ');
  const cpu = os.cpus()[0]?.model ?? '?';
  const nproc = runSync('nproc', []).out;
  const toolLines = tools.map((argv) => runSync(argv[0]!, argv.slice(1)).out.split(/[,\n]/)[0]);
  let commit = '?';
  const g = runSync('git', ['-C', ROOT, 'rev-parse', '--short', 'HEAD']);
  if (g.ok)
    commit =
      g.out +
      (runSync('git', ['-C', ROOT, 'status', '--porcelain', '--', 'src']).out ? ' (+ local changes in src/)' : '');
  return [
    `machine: nproc ${nproc}, ${cpu}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Linux ${os.release()}, load ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
    `software: node ${process.version}, python ${pyv}, ${pyModules.map((m, i) => `${m} ${versions[i] ?? '?'}`).join(', ')}${toolLines.map((t) => `, ${t}`).join('')}`,
    `sshcluster: ${commit}, dist/ built ${statSync(MAIN).mtime.toISOString()}, ${codeCache()}`,
  ];
}

const MAIN = path.join(ROOT, 'dist/main.cjs');

/**
 * Whether sshcluster's commands start compiled: cache files newer than the build, in the
 * directory bin/sshcluster uses (a relative XDG_CACHE_HOME does not count, as there).
 */
function codeCache(): string {
  const env = process.env.XDG_CACHE_HOME;
  const dir = path.join(env && path.isAbsolute(env) ? env : path.join(os.homedir(), '.cache'), 'sshcluster', 'v8');
  const built = statSync(MAIN).mtimeMs;
  const fresh = existsSync(dir)
    ? readdirSync(dir)
        .filter((n) => n.endsWith('.bin') && statSync(path.join(dir, n)).mtimeMs > built)
        .map((n) => n.split('-')[0] || '--')
    : [];
  return fresh.length
    ? `V8 code cache for: ${[...new Set(fresh)].sort().join(' ')}`
    : 'no V8 code cache yet (the first run of each command writes its own)';
}

/**
 * What the hosts' ~/.bashrc is: a file to bind over it, or undefined for the machine's own.
 * `dir()` makes the directory for a file we write (empty, slow), only once the input is good.
 */
export function bashrcFile(which: string | undefined, dir: () => string): { file?: string; label: string } {
  if (which === undefined) return { label: `this machine's own ${path.join(os.homedir(), '.bashrc')}` };
  const text = which === 'empty' ? '' : which === 'slow' ? 'sleep 0.3\n' : undefined;
  if (text === undefined) {
    if (!existsSync(which)) {
      console.error(`bench: --bashrc ${which}: no such file; give empty, slow or an existing file`);
      process.exit(2);
    }
    return { file: path.resolve(which), label: path.resolve(which) };
  }
  const file = path.join(dir(), `bashrc-${which}`);
  writeFileSync(file, text);
  return { file, label: which === 'empty' ? 'empty' : 'slow (`sleep 0.3`)' };
}

/**
 * Registered before the harness's hooks: on a signal, `first` (e.g. down a cluster), kill
 * our children by PID and exit; the harness's 'exit' hook then removes the hosts.
 */
export function onSignals(first: () => void = () => undefined): void {
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(sig, () => {
      console.error(`\nbench: ${sig}, stopping children and removing the test hosts`);
      killChildren();
      first();
      process.exit(sig === 'SIGINT' ? 130 : 143);
    });
  }
  process.on('exit', killChildren);
}

export interface Leftover {
  host: string;
  pid: number;
  cmdline: string;
  argv: string[];
}

/** Every process in the namespaces except the sshd listeners themselves. */
function leftovers(hosts: TestHost[]): Leftover[] {
  return hosts.flatMap((h) =>
    processesIn(h)
      .filter((p) => p.pid !== h.sshdPid)
      .map((p) => ({ host: h.ip, pid: p.pid, cmdline: p.cmdline.slice(0, 160), argv: p.argv })),
  );
}

/** Local ports in LISTEN state inside the host's namespace (/proc/net is per namespace). */
function listening(h: TestHost, ports: number[]): number[] {
  const r = runIn(h, ['cat', '/proc/net/tcp', '/proc/net/tcp6'], 10_000);
  const found = new Set<number>();
  for (const line of r.stdout.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 4 || f[3] !== '0A') continue; // 0A = LISTEN
    const port = parseInt(f[1]!.split(':').pop()!, 16);
    if (ports.includes(port)) found.add(port);
  }
  return [...found];
}

/**
 * Waits until no process but sshd is left in any namespace and the scheduler ports are
 * free. A leak is fatal for the benchmark: it is reported, killed by PID, and aborts.
 * `isDask` marks the leftovers that are Dask's in the report.
 */
export async function ensureClean(
  hosts: TestHost[],
  after: string,
  isDask: (l: Leftover) => boolean = () => false,
  timeoutMs = 30_000,
): Promise<{ waited: number; at: number }> {
  const t0 = performance.now();
  const ports = [SCHED_PORT, DASH_PORT];
  let left = leftovers(hosts);
  let busy = listening(hosts[0]!, ports);
  while ((left.length || busy.length) && performance.now() - t0 < timeoutMs) {
    await sleep(100);
    left = leftovers(hosts);
    busy = listening(hosts[0]!, ports);
  }
  const at = performance.now();
  const waited = at - t0;
  if (!left.length && !busy.length) return { waited, at };
  const lines = left.map((l) => `${l.host} pid ${l.pid}${isDask(l) ? ' [dask]' : ''}: ${l.cmdline}`);
  if (busy.length) lines.push(`${hosts[0]!.ip}: port(s) ${busy.join(', ')} still listening`);
  console.error(
    `\n!!! LEAK after ${after}: still there ${(waited / 1000).toFixed(0)}s later:\n  ${lines.join('\n  ')}`,
  );
  for (const l of left) {
    try {
      process.kill(l.pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  throw new BenchAbort(
    `processes left behind after ${after} (${left.filter(isDask).length} dask, ${left.length} total); killed them by PID`,
  );
}
