// `sshcluster check`, the pure part: what was observed per host → one row per host and
// the problems, each with a one-line fix. Versions are compared with the scheduler host's.
import { AUTO_PYTHON, PYTHON_CANDIDATES } from '../../dask/remote-command.js';
import type { ProbeResult } from './check-probe.js';
import { resourceProblems } from './check-resources.js';

export type Role = 'scheduler' | 'worker' | 'scheduler+worker';
export type HostKeyStatus = 'known' | 'added' | 'not checked' | 'unknown' | 'mismatch' | 'revoked';

export type ConnectObservation =
  | { ok: true; authMethod: string; hostKey: HostKeyStatus }
  | { ok: false; reason: string; message: string; hint?: string };

/** The scheduler host's listener: binding the ports is the test. undefined = free. */
export type PortsObservation =
  | {
      kind: 'tested';
      port: number;
      dashboardPort: number;
      scheduler?: string;
      dashboard?: string;
      /** Clusters of this machine whose scheduler (its dashboard) is at that host and port; `own`: the file's own cluster. */
      heldBy?: { scheduler?: string; dashboard?: string; own?: boolean };
    }
  | { kind: 'untested'; why: string };

export type ReachObservation =
  | { kind: 'ok'; target: string }
  | { kind: 'failed'; target: string; error: string }
  | { kind: 'untested'; why: string };

export interface HostObservation {
  host: string;
  role: Role;
  remotePython: string;
  /** worker_options.resources of a host that runs workers (undefined: scheduler only). */
  resources?: Record<string, number>;
  connect: ConnectObservation;
  probe?: ProbeResult;
  probeError?: string;
  /** Remote clock minus local clock, seconds. */
  clockOffsetS?: number;
  ports?: PortsObservation;
  reach?: ReachObservation;
  /** The cluster talks TLS (security:), so Python's ssl must do TLS 1.2+. */
  tls?: boolean;
}

export interface Problem {
  host: string;
  severity: 'error' | 'warning';
  message: string;
  hint: string;
}

export interface CheckRow extends HostObservation {
  problems: Problem[];
}

export interface CheckReport {
  rows: CheckRow[];
  problems: Problem[];
  launchable: boolean;
}

export const MAX_CLOCK_SKEW_S = 1;

/** What the controller holds open per host (its SSH connection, the open log file) and beside all hosts. */
export const FDS_PER_HOST = 2;
export const FDS_BASE = 64;

/**
 * `file`: the host file as the user named it, for the commands the hints give.
 * `openFiles`: this process's limit on open files (Node raises the soft limit to the
 * hard one at start, so it is the hard limit a controller gets), when known.
 */
export function evaluateCheck(obs: readonly HostObservation[], file = 'HOSTS.yaml', openFiles?: number): CheckReport {
  const sched = obs.find((o) => o.role !== 'worker')?.probe;
  const rows = obs.map((o) => ({ ...o, problems: hostProblems(o, o.role === 'worker' ? sched : undefined, file) }));
  const fds = openFiles === undefined ? undefined : openFilesProblem(obs.length, openFiles);
  const problems = [...rows.flatMap((r) => r.problems), ...(fds ? [fds] : [])];
  return { rows, problems, launchable: !problems.some((p) => p.severity === 'error') };
}

/** A controller for `hosts` hosts would run out of file descriptors (error), or come within a fifth of it (warning). */
export function openFilesProblem(hosts: number, limit: number): Problem | undefined {
  const need = hosts * FDS_PER_HOST + FDS_BASE;
  if (need * 1.25 <= limit) return undefined;
  const most = Math.max(0, Math.floor((limit - FDS_BASE) / FDS_PER_HOST));
  return {
    host: 'this machine',
    severity: need > limit ? 'error' : 'warning',
    message: `the controller may hold ${limit} open files, enough for about ${most} hosts; ${hosts} hosts need about ${need} (${FDS_PER_HOST} a host + ${FDS_BASE})`,
    hint: `raise the hard limit for the user that runs sshcluster (ulimit -Hn, or nofile in /etc/security/limits.conf) to at least ${Math.ceil(need * 1.25)}`,
  };
}

function hostProblems(o: HostObservation, sched: ProbeResult | undefined, file: string): Problem[] {
  const out: Problem[] = [];
  const add = (severity: Problem['severity'], message: string, hint: string): void =>
    void out.push({ host: o.host, severity, message, hint });
  if (!o.connect.ok) {
    add('error', o.connect.message, o.connect.hint ?? 'check the host name, port and credentials with `ssh -v`');
    return out;
  }
  if (o.probeError !== undefined || !o.probe) {
    add(
      'error',
      `probe failed: ${o.probeError ?? 'no output'}`,
      `run \`sshcluster exec ${file} -- true\` to see whether commands run on it`,
    );
    return out;
  }
  pythonProblems(o, o.probe, sched, add, file);
  portProblems(o, add, file);
  resourceProblems(o.resources, o.probe, add);
  if (o.clockOffsetS !== undefined && Math.abs(o.clockOffsetS) > MAX_CLOCK_SKEW_S) {
    const how = o.clockOffsetS > 0 ? 'ahead of' : 'behind';
    add(
      'warning',
      `clock is ${Math.abs(o.clockOffsetS).toFixed(1)}s ${how} this machine`,
      'run NTP on the hosts (chrony or systemd-timesyncd); Dask timeouts and logs assume close clocks',
    );
  }
  return out;
}

type Add = (severity: Problem['severity'], message: string, hint: string) => void;

function pythonProblems(
  o: HostObservation,
  p: ProbeResult,
  sched: ProbeResult | undefined,
  add: Add,
  file: string,
): void {
  const auto = o.remotePython === AUTO_PYTHON;
  const candidates = PYTHON_CANDIDATES.join(', ');
  if (p.setupFailed !== undefined) {
    add(
      'error',
      `the host's setup lines failed (${p.setupFailed}); nothing after them ran`,
      `fix its setup: in the host file (\`sshcluster exec ${file} -- true\` shows what they print)`,
    );
    return;
  }
  if (!p.pythonPath) {
    if (auto)
      add(
        'error',
        `python not found: none of ${candidates} is on that host`,
        "install Python 3 with distributed (apt-get install python3-distributed), or set remote_python to the interpreter's full path",
      );
    else
      add(
        'error',
        `python not found: remote_python "${o.remotePython}"`,
        `set remote_python to the full path of an interpreter with distributed on that host, or remove it to use the first of ${candidates} that has distributed`,
      );
    return;
  }
  if (p.pythonFailed !== undefined) {
    add(
      'error',
      `remote_python ${p.pythonPath} did not run (${p.pythonFailed})`,
      'point remote_python at a working Python 3 interpreter',
    );
    return;
  }
  for (const mod of ['distributed', 'dask'] as const) {
    const error = mod === 'dask' ? p.daskError : p.distributedError;
    const want = sched?.[mod];
    const pin = want ? `"${mod}==${want}"` : mod;
    if (error !== undefined) {
      const fix = auto
        ? `none of ${candidates} has distributed: install it for one (${p.pythonPath} -m pip install ${pin}, or apt-get install python3-distributed), or set remote_python to an interpreter that has it`
        : `install it for that interpreter: ${pipInstall(file, pin)}; or remove remote_python to use the first of ${candidates} that has distributed`;
      add('error', `${mod} cannot be imported by ${p.pythonPath}: ${error}`, fix);
    } else if (want !== undefined && p[mod] !== undefined && p[mod] !== want) {
      add(
        'error',
        `${mod} ${p[mod]} differs from the scheduler host's ${want}`,
        `install the same version everywhere: ${pipInstall(file, pin)}`,
      );
    }
  }
  if (o.tls) tlsProblems(p, add);
  const minor = (v: string | undefined): string | undefined => v?.split('.').slice(0, 2).join('.');
  if (sched?.pythonVersion && p.pythonVersion && minor(sched.pythonVersion) !== minor(p.pythonVersion)) {
    add(
      'warning',
      `python ${p.pythonVersion} differs from the scheduler host's ${sched.pythonVersion}`,
      'use the same Python minor version on every host: functions are pickled between them',
    );
  }
}

/**
 * pip for the cluster's interpreter on every host (exec's $SSHCLUSTER_PYTHON), not the
 * login shell's python3; the same on each host, so the problem folds over hosts.
 */
function pipInstall(file: string, pin: string): string {
  return `sshcluster exec ${file} -- '"$SSHCLUSTER_PYTHON" -m pip install ${pin}'`;
}

function tlsProblems(p: ProbeResult, add: Add): void {
  const hint =
    'use a Python built with OpenSSL 1.1.1 or later (TLS 1.2+), or set security: none in the host file (plain TCP, no authentication)';
  if (p.sslError !== undefined)
    add('error', `${p.pythonPath} has no usable ssl module (${p.sslError}): the cluster's TLS needs it`, hint);
  else if (p.ssl && !p.ssl.tls12)
    add('error', `${p.pythonPath}'s ssl (${p.ssl.openssl}) cannot do TLS 1.2, which Dask requires at least`, hint);
}

function portProblems(o: HostObservation, add: Add, file: string): void {
  const ports = o.ports;
  if (ports?.kind === 'tested') {
    const stop = (port: number, holder: string | undefined, key: string): string =>
      holder === undefined
        ? `stop what listens there (\`ss -ltnp 'sport = :${port}'\` on the host) or set ${key}`
        : ports.heldBy?.own
          ? `it is this file's cluster "${holder}", running: check is for hosts before up (\`sshcluster status --name ${holder}\` shows it, \`sshcluster plan ${file}\` what a change would do)`
          : `it is cluster "${holder}"'s (sshcluster list): stop it with \`sshcluster down --name ${holder}\`, or set ${key}`;
    if (ports.scheduler !== undefined) {
      add(
        'error',
        `scheduler port ${ports.port} ${busy(ports.scheduler)} (${ports.scheduler})`,
        stop(ports.port, ports.heldBy?.scheduler, 'scheduler_options.port'),
      );
    }
    if (ports.dashboard !== undefined) {
      add(
        'error',
        `dashboard port ${ports.dashboardPort} ${busy(ports.dashboard)} (${ports.dashboard})`,
        stop(ports.dashboardPort, ports.heldBy?.dashboard, 'scheduler_options.dashboard_address'),
      );
    }
  }
  if (o.reach?.kind === 'failed') {
    add(
      'error',
      `cannot connect to the scheduler at ${o.reach.target} (${o.reach.error})`,
      'open that port from the workers to the scheduler host (firewall), or set scheduler_options.host to an address they can reach',
    );
  }
}

function busy(why: string): string {
  return /in use/i.test(why) ? 'is taken' : 'cannot be bound';
}
