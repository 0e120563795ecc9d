// Composition root of `sshcluster up`: builds the spec and the real adapters, owns the
// signal handling, and keeps the cluster until Ctrl-C / SIGTERM or a fatal failure.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { loadHostFile } from '../config/load.js';
import { localClusterSpec } from '../config/local.js';
import type { ClusterSpec, HostSpec } from '../config/spec.js';
import { ndjsonSink, plainSink } from '../events/plain-sink.js';
import { EventBus } from '../events/types.js';
import { HostConnection } from '../ssh/host-connection.js';
import { ClusterSession } from './cluster-session.js';
import type { AppContext } from './context.js';
import { LocalShell } from './local-shell.js';
import { findLocalPython } from './local-python.js';
import { secretProvider } from './secrets.js';
import type { ShellPort } from './shell-port.js';

export interface UpOptions {
  file?: string;
  fanout: number;
  requireAll: boolean;
  json: boolean;
  python?: string;
  readyTimeoutMs: number;
}

export function loadSpec(ctx: AppContext, file: string | undefined, python?: string): ClusterSpec {
  if (!file) {
    return localClusterSpec({ cores: ctx.cores, memoryBytes: ctx.memoryBytes, python: findLocalPython(ctx.env, python) });
  }
  return loadHostFile(path.resolve(ctx.cwd, file), {
    readFile: (p: string) => fs.readFileSync(p, 'utf8'),
    env: ctx.env,
    homedir: ctx.homedir,
    cwd: ctx.cwd,
    username: ctx.username,
  });
}

export function shellOpener(ctx: AppContext, spec: ClusterSpec): (h: HostSpec) => Promise<ShellPort> {
  if (spec.local) return async () => new LocalShell(ctx.env);
  const secrets = secretProvider(ctx);
  return (h) =>
    HostConnection.open(h.connect, {
      readFile: (p: string) => fs.readFileSync(p),
      appendFile: (p: string, text: string) => fs.appendFileSync(p, text, { mode: 0o600 }),
      secrets,
    });
}

export async function runUp(ctx: AppContext, opts: UpOptions): Promise<number> {
  const spec = loadSpec(ctx, opts.file, opts.python);
  const clusterId = randomBytes(8).toString('hex');
  const bus = new EventBus();
  bus.on(opts.json ? ndjsonSink((t) => ctx.stdout.write(t)) : plainSink((t) => ctx.stdout.write(t)));
  if (spec.local) bus.emit({ kind: 'notice', level: 'info', message: `Local cluster on this machine (${spec.workerHosts[0]?.workerOptions.nworkers ?? 0} workers, python ${spec.schedulerHost.remotePython})` });

  const session = new ClusterSession({
    spec,
    clusterId,
    bus,
    fanout: opts.fanout,
    requireAll: opts.requireAll,
    readyTimeoutMs: opts.readyTimeoutMs,
    openShell: shellOpener(ctx, spec),
  });

  let stopReason: string | undefined;
  let signalled!: () => void;
  const stopRequested = new Promise<void>((r) => (signalled = r));
  const off = ctx.onSignal((sig) => {
    if (stopReason === undefined) {
      stopReason = sig === 'SIGINT' ? 'Ctrl-C' : sig;
      if (sig === 'SIGINT') ctx.stderr.write('\nStopping gracefully; press Ctrl-C again to force.\n');
      signalled();
    } else {
      ctx.stderr.write('\nForcing: killing every process of this cluster now.\n');
      session.force();
    }
  });

  try {
    const started = session.start();
    const first = await Promise.race([started.then(() => 'up' as const), stopRequested.then(() => 'stop' as const)]);
    if (first === 'stop') {
      await session.teardown({ reason: stopReason ?? 'stop', force: false });
      await started.catch(() => undefined);
      return 130;
    }
    const schedulerDied = session.schedulerExit().then(() => 'scheduler-died' as const);
    const why = await Promise.race([stopRequested.then(() => 'stop' as const), schedulerDied]);
    if (why === 'scheduler-died') {
      bus.emit({ kind: 'notice', level: 'error', message: 'the scheduler exited; stopping the cluster' });
      await session.teardown({ reason: 'scheduler exited', force: false });
      return 1;
    }
    const result = await session.teardown({ reason: stopReason ?? 'stop', force: false });
    return result.leftover.length ? 1 : 0;
  } catch (err) {
    if (stopReason !== undefined) return 130;
    throw err;
  } finally {
    off();
  }
}
