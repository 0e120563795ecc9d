import { spawnSync } from 'node:child_process';
import { basename } from 'node:path';
import { cmdlineOf, descendantsOf, run } from './proc.js';
import type { TestHost } from './types.js';

/** A namespace name, or a host (which also works in loopback fallback mode). */
export type Where = string | TestHost;

function nsOf(where: Where): string {
  return typeof where === 'string' ? where : where.ns;
}

/** Every process in the namespace: sshd, its sessions, and anything they left running. */
export function nsPids(where: Where): number[] {
  const ns = nsOf(where);
  if (ns === '') {
    // Loopback fallback: best effort, processes that re-parented away are missed.
    if (typeof where === 'string') throw new Error('nsPids: empty namespace name');
    return descendantsOf(where.sshdPid);
  }
  return run('ip', ['netns', 'pids', ns])
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map(Number);
}

export interface ProcInfo {
  pid: number;
  /** argv joined by spaces (NULs in /proc/<pid>/cmdline). */
  cmdline: string;
  argv: string[];
}

export function processesIn(where: Where): ProcInfo[] {
  return nsPids(where)
    .map((pid) => ({ pid, argv: cmdlineOf(pid) }))
    .filter((p) => p.argv.length > 0) // exited meanwhile, or a kernel thread
    .map((p) => ({ ...p, cmdline: p.argv.join(' ') }));
}

export type DaskRole = 'scheduler' | 'worker';
export interface DaskProcInfo extends ProcInfo {
  role: DaskRole;
}

/**
 * Dask scheduler/worker processes, matched per argv element so a `sh -c "…dask…"`
 * wrapper is not counted twice. Nanny-spawned worker children (multiprocessing
 * `spawn_main`) do not name dask and are not listed.
 */
export function daskRole(argv: string[]): DaskRole | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const mod = /^distributed\.cli\.dask_(scheduler|worker)$/.exec(arg);
    if (mod) return mod[1] as DaskRole;
    const bin = /^dask-(scheduler|worker)$/.exec(basename(arg));
    if (bin) return bin[1] as DaskRole;
    const next = argv[i + 1];
    if (basename(arg) === 'dask' && (next === 'scheduler' || next === 'worker')) return next;
  }
  return undefined;
}

export function daskProcessesIn(where: Where): DaskProcInfo[] {
  return processesIn(where).flatMap((p) => {
    const role = daskRole(p.argv);
    return role ? [{ ...p, role }] : [];
  });
}

export interface RunResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs argv inside the namespace (directly in loopback mode, same network anyway). */
export function runIn(where: Where, argv: string[], timeoutMs = 30_000): RunResult {
  const ns = nsOf(where);
  const [cmd, args] = ns === '' ? [argv[0]!, argv.slice(1)] : ['ip', ['netns', 'exec', ns, ...argv]];
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: timeoutMs });
  return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? (r.error ? String(r.error) : '') };
}

/**
 * Cuts a host off (or reconnects it) by toggling its interface inside the namespace.
 * Admin-down flushes the default route, so 'up' puts it back.
 */
export function setLink(host: TestHost, state: 'up' | 'down'): void {
  if (host.ns === '') throw new Error('setLink: not available in loopback fallback mode');
  run('ip', ['-n', host.ns, 'link', 'set', host.link, state]);
  if (state === 'up') run('ip', ['-n', host.ns, 'route', 'replace', 'default', 'via', host.gateway]);
}
