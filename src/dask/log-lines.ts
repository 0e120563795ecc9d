// Pure parsers over single stderr lines of `dask scheduler` / `dask worker` (format
// pinned by DASK_LOG_FORMAT: "2026-01-01 12:00:00,000 - distributed.worker - INFO - …").
// Patterns come from lines captured from distributed 2022.12 (test/unit/fixtures/dask).

export type LogLevel = 'DEBUG' | 'INFO' | 'WARNING' | 'ERROR' | 'CRITICAL';

export interface LogRecord {
  time: string;
  logger: string;
  level: LogLevel;
  message: string;
}

/** Lines that are not log records: traceback bodies, warnings.warn output. */
export type ErrorLine =
  | { kind: 'error'; reason: 'address-in-use'; message: string }
  | { kind: 'error'; reason: 'exception'; exception: string; message: string }
  | { kind: 'error'; reason: 'logged'; message: string }
  | { kind: 'traceback' };

export type CommonLine =
  ErrorLine | { kind: 'signal'; signal: string } | { kind: 'dashboard-port-taken'; port: number };

export type SchedulerLine =
  | CommonLine
  | { kind: 'listening'; address: string }
  | { kind: 'dashboard'; host: string | undefined; port: number }
  | { kind: 'worker-added'; address: string; name?: string }
  | { kind: 'worker-removed'; address: string; name?: string }
  | { kind: 'worker-retired'; address: string }
  | { kind: 'duplicate-name'; name: string }
  | { kind: 'closing' }
  | { kind: 'stopped' };

export type WorkerLine =
  | CommonLine
  | { kind: 'nanny'; address: string }
  | { kind: 'listening'; address: string }
  | { kind: 'name'; name: string }
  | { kind: 'waiting-for-scheduler'; scheduler: string }
  | { kind: 'registered'; scheduler: string }
  | { kind: 'rejected'; reason: string; nameTaken: boolean }
  | { kind: 'timeout'; message: string }
  | { kind: 'closing'; address?: string; reason?: string; nanny: boolean }
  | { kind: 'worker-died'; message: string }
  | { kind: 'restarting' }
  | { kind: 'stopped' };

const RECORD = /^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+) - (\S+) - (DEBUG|INFO|WARNING|ERROR|CRITICAL) - (.*)$/;

export function parseRecord(line: string): LogRecord | undefined {
  const m = RECORD.exec(line.trimEnd());
  if (!m) return undefined;
  return { time: m[1]!, logger: m[2]!, level: m[3] as LogLevel, message: m[4]! };
}

export function parseLevel(line: string): LogLevel | undefined {
  return parseRecord(line)?.level;
}

/** Prefix of the first stdout line of the launcher and the keeper (remote/*.py). */
export const LAUNCHER_PID_PREFIX = '__SSHCLUSTER_PID__';

/**
 * The launcher's last stdout line after a teardown's `DOWN TOKEN`, when nothing else of
 * the cluster is left on its host and the files are gone: `__SSHCLUSTER_CLEAN__ TOKEN`.
 */
export const LAUNCHER_CLEAN_PREFIX = '__SSHCLUSTER_CLEAN__';

/** `__SSHCLUSTER_PID__ 1234` → 1234. */
export function parseLauncherPid(line: string): number | undefined {
  const m = new RegExp(`^${LAUNCHER_PID_PREFIX} (\\d+)\\s*$`).exec(line);
  return m ? Number(m[1]) : undefined;
}

// "<WorkerState 'tcp://…', name: w-0, status: …>" (2022.x); older releases log the bare address.
const WORKER_REF = /(?:<WorkerState '([^']+)'(?:, name: (.*?), status:)?|(\w+:\/\/\S+))/;

function workerRef(rest: string): { address: string; name?: string } | undefined {
  const m = WORKER_REF.exec(rest);
  const address = m?.[1] ?? m?.[3];
  if (!m || !address) return undefined;
  return m[2] === undefined ? { address } : { address, name: m[2] };
}

function afterColon(message: string, label: string): string | undefined {
  const m = new RegExp(`^\\s*${label}:\\s+(.*?)\\s*$`).exec(message);
  return m?.[1];
}

export function parseSchedulerLine(line: string): SchedulerLine | undefined {
  const rec = parseRecord(line);
  if (!rec) return parseCommon(line);
  const msg = rec.message;
  const listening = afterColon(msg, 'Scheduler at');
  if (listening) return { kind: 'listening', address: listening };
  const dash = /^\s*dashboard at:\s+(\S*):(\d+)\s*$/.exec(msg);
  if (dash) return { kind: 'dashboard', host: dash[1] || undefined, port: Number(dash[2]) };
  const added = /^Register worker (.*)$/.exec(msg);
  const addedRef = added && workerRef(added[1]!);
  if (addedRef) return { kind: 'worker-added', ...addedRef };
  const removed = /^Remove worker (.*)$/.exec(msg);
  const removedRef = removed && workerRef(removed[1]!);
  if (removedRef) return { kind: 'worker-removed', ...removedRef };
  const retired = /^Retired worker (\S+)$/.exec(msg);
  if (retired) return { kind: 'worker-retired', address: retired[1]! };
  const dup = /^Worker tried to connect with a duplicate name: (.*)$/.exec(msg);
  if (dup) return { kind: 'duplicate-name', name: dup[1]! };
  if (msg === 'Scheduler closing...') return { kind: 'closing' };
  if (msg === 'End scheduler') return { kind: 'stopped' };
  return parseCommonRecord(rec);
}

export function parseWorkerLine(line: string): WorkerLine | undefined {
  const rec = parseRecord(line);
  if (!rec) return parseCommon(line);
  const msg = rec.message;
  const nanny = afterColon(msg, 'Start Nanny at');
  if (nanny) return { kind: 'nanny', address: nanny.replace(/^'(.*)'$/, '$1') };
  const listening = afterColon(msg, 'Start worker at');
  if (listening) return { kind: 'listening', address: listening };
  const name = afterColon(msg, 'Worker name');
  if (name) return { kind: 'name', name };
  const waiting = afterColon(msg, 'Waiting to connect to');
  if (waiting) return { kind: 'waiting-for-scheduler', scheduler: waiting };
  const registered = afterColon(msg, 'Registered to');
  if (registered) return { kind: 'registered', scheduler: registered };
  const rejected = /^Unable to connect to scheduler: (.*)$/.exec(msg);
  if (rejected) return { kind: 'rejected', reason: rejected[1]!, nameTaken: /name taken/.test(msg) };
  if (/^Timed out /.test(msg)) return { kind: 'timeout', message: msg };
  const stopping = /^Stopping worker at (\S+?)\.? Reason: (.*)$/.exec(msg);
  if (stopping) return { kind: 'closing', address: stopping[1]!, reason: stopping[2]!, nanny: false };
  const nannyClose = /^Closing Nanny (?:gracefully )?at '([^']*)'\. Reason: (.*)$/.exec(msg);
  if (nannyClose) return { kind: 'closing', address: nannyClose[1]!, reason: nannyClose[2]!, nanny: true };
  if (/^Worker process (died unexpectedly|\d+ was killed|\d+ exited)/.test(msg)) {
    return { kind: 'worker-died', message: msg };
  }
  if (msg === 'Restarting worker') return { kind: 'restarting' };
  if (msg === 'End worker') return { kind: 'stopped' };
  return parseCommonRecord(rec);
}

function parseCommonRecord(rec: LogRecord): CommonLine | undefined {
  const sig = /^Received signal (SIG[A-Z]+)/.exec(rec.message);
  if (sig) return { kind: 'signal', signal: sig[1]! };
  if (rec.level === 'ERROR' || rec.level === 'CRITICAL') {
    return { kind: 'error', reason: 'logged', message: rec.message };
  }
  return undefined;
}

/** Lines outside the log format: tracebacks and Python warnings. */
function parseCommon(line: string): CommonLine | undefined {
  const text = line.trimEnd();
  if (text === 'Traceback (most recent call last):') return { kind: 'traceback' };
  if (/Address already in use/.test(text) && !/^\s/.test(text)) {
    return { kind: 'error', reason: 'address-in-use', message: text };
  }
  const exc = /^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt))(?:: (.*))?$/.exec(text);
  if (exc) return { kind: 'error', reason: 'exception', exception: exc[1]!, message: exc[2] ?? '' };
  const taken = /UserWarning: Port (\d+) is already in use/.exec(text);
  if (taken) return { kind: 'dashboard-port-taken', port: Number(taken[1]) };
  return undefined;
}

/** The dashboard URL a user can open; `host` when the scheduler listens on all addresses. */
export function dashboardUrl(line: { host: string | undefined; port: number }, host: string): string {
  const h = line.host && line.host !== '0.0.0.0' ? line.host : host;
  return `http://${h.includes(':') && !h.startsWith('[') ? `[${h}]` : h}:${line.port}/status`;
}

/** The keeper's refusal of a planted orphan-log directory (keeper.py), without its prefix. */
export function parseKeeperRefusal(line: string): string | undefined {
  const m = /^sshcluster-keeper: (not our directory: .*)$/.exec(line.trimEnd());
  return m?.[1];
}

/** The scheduler preload's line when a client's shutdown() terminates it (scheduler_demand.py). */
export function isClientTerminate(line: string): boolean {
  const r = parseRecord(line);
  return (
    r?.logger === 'distributed.sshcluster.demand' &&
    r.message === 'sshcluster: a client asked the scheduler to terminate'
  );
}
