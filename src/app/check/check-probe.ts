// The remote side of `sshcluster check`: one probe script per host (sh for what needs
// no python, then dask/remote/check-probe.py for versions and the reachability test)
// and, on the scheduler host, a short-lived listener (check-listener.py) that is both
// the port test and the target of the workers' reachability test. Output lines start
// with "@sshc " so setup noise is ignored.
import type { HostSpec } from '../../config/spec.js';
import {
  AUTO_PYTHON,
  discoverPython,
  PYTHON_CANDIDATES,
  pythonWord,
  quotePath,
  quoteWord,
  type RemoteInvocation,
} from '../../dask/remote-command.js';
import { programCommand, remoteProgram } from '../../dask/remote-programs.js';
import { HANDSHAKE_TOTAL_FACTOR } from '../../ssh/handshake-deadline.js';
import { hostScript } from '../transport/remote-script.js';

export function probeScript(h: HostSpec): RemoteInvocation {
  const probe = remoteProgram('check-probe');
  const body = [
    // The body runs after the host's setup: without this line, the setup failed.
    'echo "@sshc ready"',
    `echo "@sshc cores $(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null)"`,
    `echo "@sshc memkb $(awk '/^MemTotal:/ {print $2}' /proc/meminfo 2>/dev/null)"`,
    `if command -v nvidia-smi >/dev/null 2>&1; then nvidia-smi -L 2>/dev/null | sed 's/^/@sshc gpu /'; fi`,
    ...findPython(h.remotePython),
    `echo "@sshc python $P"`,
    `if [ -n "$P" ]; then ${programCommand('"$P"', probe, false, [])}; echo "@sshc pyexit $?"; fi`,
  ].join('\n');
  // The date comes first, before setup, so it is read soon after the command is sent.
  const inv = hostScript(h, body, probe.source);
  return { ...inv, command: `echo "@sshc date $(date +%s.%N 2>/dev/null)"\n${inv.command}` };
}

/**
 * sh setting $P to the interpreter `up` would use; when `auto` finds none with
 * distributed, to the first candidate that exists, so the probe can say what it lacks.
 */
function findPython(remotePython: string): string[] {
  if (remotePython !== AUTO_PYTHON) return [`P=$(command -v ${quotePath(remotePython)} 2>/dev/null)`];
  const first = `for c in ${PYTHON_CANDIDATES.map(quoteWord).join(' ')}; do P=$(command -v "$c" 2>/dev/null) && break; done`;
  return [discoverPython(), `if [ -n "$sshc_py" ]; then P=$(command -v "$sshc_py"); else ${first}; fi`];
}

export interface ListenSpec {
  host: string;
  port: number;
  dashboardHost: string;
  dashboardPort: number;
  lifetimeS: number;
}

/**
 * How long the scheduler host's listener may outlive a controller that died (a live one
 * stops it once every worker has tried it): the probe's time limit, then, since the
 * handshakes go `fanout` at a time, a handshake's longest per wave of them (a slow host
 * that keeps answering may take HANDSHAKE_TOTAL_FACTOR connect time limits). A fixed
 * lifetime ended the listener before the last workers of a large file reached it.
 */
export function listenerLifetimeS(o: {
  hosts: number;
  fanout: number;
  timeoutMs: number;
  connectTimeoutMs: number;
}): number {
  const waves = Math.ceil(o.hosts / Math.max(1, o.fanout));
  return Math.ceil((o.timeoutMs + waves * o.connectTimeoutMs * HANDSHAKE_TOTAL_FACTOR) / 1000) + 30;
}

export function listenerScript(h: HostSpec, l: ListenSpec): RemoteInvocation {
  const listener = remoteProgram('check-listener');
  const args = [l.host, String(l.port), l.dashboardHost, String(l.dashboardPort), String(l.lifetimeS)].map(quoteWord);
  const py = pythonWord(h.remotePython);
  return hostScript(
    h,
    [...py.lines, `exec ${programCommand(py.word, listener, false, args)}`].join('\n'),
    listener.source,
  );
}

export interface ProbeResult {
  remoteTime?: number;
  cores?: number;
  memoryBytes?: number;
  gpus: string[];
  /** `command -v` of remote_python; undefined when not found. */
  pythonPath?: string;
  pythonVersion?: string;
  dask?: string;
  daskError?: string;
  distributed?: string;
  distributedError?: string;
  /** Python's ssl module: what the cluster's TLS needs (1.2 at least, Dask's minimum). */
  ssl?: { openssl: string; tls12: boolean; tls13: boolean };
  sslError?: string;
  /** python was found but the probe did not finish. */
  pythonFailed?: string;
  /** The host's setup lines ran (the body's first line came). */
  ready?: boolean;
  /** The setup failed (the body never ran): its exit and last error line. */
  setupFailed?: string;
  reach?: { ok: boolean; error?: string };
}

export function parseProbe(stdout: string, stderr: string): ProbeResult {
  const r: ProbeResult = { gpus: [] };
  let pyExit: number | undefined;
  let sawPy = false;
  for (const line of stdout.split('\n')) {
    const m = /^@sshc (\w+) ?(.*)$/.exec(line.trimEnd());
    if (!m) continue;
    const [, key, value = ''] = m;
    if (key === 'date') r.remoteTime = parseDate(value);
    else if (key === 'ready') r.ready = true;
    else if (key === 'cores') r.cores = positive(value);
    else if (key === 'memkb') r.memoryBytes = mul(positive(value), 1024);
    else if (key === 'gpu' && value) r.gpus.push(value);
    else if (key === 'python' && value) r.pythonPath = value;
    else if (key === 'pyexit') pyExit = Number(value);
    else if (key === 'py') {
      sawPy = true;
      Object.assign(r, pyFields(value));
    } else if (key === 'reach') r.reach = jsonOf(value) as ProbeResult['reach'];
  }
  if (r.pythonPath && !sawPy) {
    const last = stderr.trim().split('\n').slice(-1)[0] ?? '';
    r.pythonFailed = `exit ${pyExit ?? '?'}${last ? `: ${last}` : ''}`;
  }
  return r;
}

function pyFields(text: string): Partial<ProbeResult> {
  const j = (jsonOf(text) ?? {}) as Record<string, unknown>;
  const str = (k: string): string | undefined => (typeof j[k] === 'string' ? (j[k] as string) : undefined);
  const out: Partial<ProbeResult> = {};
  const set = (k: keyof ProbeResult, v: string | undefined): void => {
    if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  };
  set('pythonVersion', str('version'));
  set('dask', str('dask'));
  set('daskError', str('dask_error'));
  set('distributed', str('distributed'));
  set('distributedError', str('distributed_error'));
  set('sslError', str('ssl_error'));
  const ssl = j.ssl as Record<string, unknown> | undefined;
  if (ssl && typeof ssl === 'object')
    out.ssl = { openssl: String(ssl.openssl ?? '?'), tls12: ssl.tls12 === true, tls13: ssl.tls13 === true };
  return out;
}

function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function parseDate(v: string): number | undefined {
  // busybox date has no %N and prints it literally.
  const m = /^(\d+)(?:\.(\d+))?/.exec(v);
  if (!m) return undefined;
  return Number(m[1]) + (m[2] ? Number(`0.${m[2]}`) : 0);
}

function positive(v: string): number | undefined {
  const n = Number(v.trim());
  return v.trim() !== '' && Number.isFinite(n) && n > 0 ? n : undefined;
}

function mul(n: number | undefined, k: number): number | undefined {
  return n === undefined ? undefined : n * k;
}

export interface PortsResult {
  pid: number;
  /** undefined: free; else why it could not be bound. */
  scheduler?: string;
  dashboard?: string;
}

export function parsePortsLine(line: string): PortsResult | undefined {
  const m = /^@sshc ports (.*)$/.exec(line.trim());
  const j = m ? (jsonOf(m[1]!) as Record<string, unknown> | undefined) : undefined;
  if (!j || typeof j.pid !== 'number') return undefined;
  const r: PortsResult = { pid: j.pid };
  if (typeof j.scheduler === 'string') r.scheduler = j.scheduler;
  if (typeof j.dashboard === 'string') r.dashboard = j.dashboard;
  return r;
}
