// The I/O of `sshcluster check` on one host: the probe run (with the clock read as it
// arrives and, for workers, the scheduler address fed on stdin once the listener is up)
// and the scheduler host's listener.
import type { HostSpec } from '../../config/spec.js';
import {
  listenerScript,
  parsePortsLine,
  parseProbe,
  probeScript,
  type ListenSpec,
  type ProbeResult,
} from './check-probe.js';
import type { PortsObservation } from './check-evaluate.js';
import { startRemote } from '../transport/remote-script.js';
import type { ShellPort } from '../../ssh/shell-port.js';
import type { ExecHandle } from '../../ssh/exec-handle.js';

export interface ProbeOutcome {
  probe?: ProbeResult;
  error?: string;
  clockOffsetS?: number;
}

/** `target` resolves to "host port" for the reachability test, or undefined to skip it. */
export async function probeHost(
  h: HostSpec,
  shell: ShellPort,
  target: Promise<string | undefined>,
  timeoutMs: number,
): Promise<ProbeOutcome> {
  const sent = Date.now();
  const handle = await startRemote(shell, probeScript(h));
  let arrived: number | undefined;
  let stdout = '';
  let stderr = '';
  handle.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
    if (arrived === undefined && stdout.includes('@sshc date')) arrived = Date.now();
  });
  handle.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-4000)));
  void target.then((t) => feed(handle, t));
  const finished = await withTimeout(Promise.all([handle.exit, ended(handle.stdout)]), timeoutMs);
  if (!finished) {
    handle.close();
    return { error: `no answer within ${timeoutMs / 1000}s` };
  }
  const probe = parseProbe(stdout, stderr);
  if (!probe.ready) {
    const [exit] = finished;
    const last = stderr.trim().split('\n').slice(-1)[0] ?? '';
    probe.setupFailed = `exit ${exit.code ?? exit.signal ?? '?'}${last ? `: ${last}` : ''}`;
  }
  const clockOffsetS =
    probe.remoteTime !== undefined && arrived !== undefined
      ? clockOffset(probe.remoteTime, sent / 1000, arrived / 1000)
      : undefined;
  return { probe, ...(clockOffsetS !== undefined ? { clockOffsetS } : {}) };
}

/**
 * How far the host's clock is off, in seconds: a host whose clock agrees with ours read
 * it between the command being sent and its date arriving, so only a reading outside that
 * window is an offset (by its distance to the window). Against the arrival time alone, a
 * busy controller (256 handshakes on 2 cores) read its own late events as hosts behind.
 */
export function clockOffset(remote: number, sent: number, arrived: number): number {
  if (remote < sent) return remote - sent;
  return remote > arrived ? remote - arrived : 0;
}

function feed(handle: ExecHandle, target: string | undefined): void {
  try {
    if (target !== undefined && handle.stdin.writable) handle.stdin.write(`${target}\n`);
  } finally {
    handle.closeStdin();
  }
}

export interface Listener {
  ports: PortsObservation;
  /** Listening on the scheduler port, ready for the workers' test. */
  listening: boolean;
  stop(): Promise<void>;
}

/** Binds the scheduler port (and tries the dashboard port) on the scheduler host. */
export async function startListener(
  h: HostSpec,
  shell: ShellPort,
  l: ListenSpec,
  timeoutMs: number,
): Promise<Listener> {
  const handle = await startRemote(shell, listenerScript(h, l));
  let stdout = '';
  let stderr = '';
  let gotLine: (line: string | undefined) => void = () => {};
  const line = new Promise<string | undefined>((r) => (gotLine = r));
  handle.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
    const found = stdout.split('\n').find((x) => x.startsWith('@sshc ports '));
    if (found) gotLine(found);
  });
  handle.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-4000)));
  void handle.exit.then(() => setTimeout(() => gotLine(undefined), 50));
  const first = await withTimeout(line, timeoutMs);
  const r = first ? parsePortsLine(first) : undefined;
  const stop = async (): Promise<void> => {
    // By PID: closing the channel alone does not stop a remote process on OpenSSH.
    if (r && r.scheduler === undefined)
      await shell.run(`kill ${r.pid} 2>/dev/null; true`, { timeoutMs: 10_000 }).catch(() => undefined);
    handle.closeStdin();
    handle.close();
  };
  if (!r) {
    const last = stderr.trim().split('\n').slice(-1)[0];
    return {
      ports: { kind: 'untested', why: `the port test did not run${last ? `: ${last}` : ''}` },
      listening: false,
      stop,
    };
  }
  const ports: PortsObservation = { kind: 'tested', port: l.port, dashboardPort: l.dashboardPort };
  if (r.scheduler !== undefined) ports.scheduler = r.scheduler;
  if (r.dashboard !== undefined) ports.dashboard = r.dashboard;
  return { ports, listening: r.scheduler === undefined, stop };
}

async function withTimeout<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), ms)));
  try {
    return await Promise.race([p, t]);
  } finally {
    clearTimeout(timer);
  }
}

function ended(stream: NodeJS.ReadableStream): Promise<void> {
  return new Promise((resolve) => {
    stream.once('end', resolve);
    stream.once('close', resolve);
  });
}
