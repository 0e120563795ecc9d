// `up --detach`: the same `up`, run as a background controller in its own session.
// The parent shows start-up progress it receives over an IPC channel, and returns once
// the cluster is up; the controller's own output goes to controller.log.
import { fork } from 'node:child_process';
import fs from 'node:fs';
import { ensureClusterDir } from '../../control/paths.js';
import { ExpectedError } from '../../errors.js';
import { plainSink } from '../../events/plain-sink.js';
import type { ClusterEvent } from '../../events/types.js';
import type { AppContext } from '../context.js';
import { pathsFor } from '../controller/control-endpoint.js';
import { refuseIfRunning } from './find-cluster.js';
import { loadSpec } from './up.js';

/**
 * How long (s) the processes of a detached controller outlive it, waiting for an `up`
 * of the same cluster to adopt them; a foreground `up` uses 0 (they stop with it).
 */
export const DETACHED_ORPHAN_GRACE_S = 300;

export async function runDetached(ctx: AppContext, o: { file?: string; name?: string; python?: string; mainScript: string; childArgs: string[] }): Promise<number> {
  // Config errors and a clash with a running cluster show here, before anything starts;
  // a dead controller's cluster is adopted by the child.
  const spec = loadSpec(ctx, o.file, o.python);
  const name = o.name ?? spec.name;
  const paths = pathsFor(ctx, name);
  await refuseIfRunning(paths, name);
  await ensureClusterDir(paths);
  const log = fs.openSync(paths.controllerLog, 'a', 0o600);
  const child = fork(o.mainScript, [...o.childArgs, '--controller-child'], {
    cwd: ctx.cwd,
    env: ctx.env,
    detached: true,
    stdio: ['ignore', log, log, 'ipc'],
  });
  fs.closeSync(log);
  const show = plainSink((t) => ctx.stdout.write(t));
  return await new Promise<number>((resolve) => {
    child.on('message', (e: ClusterEvent) => {
      if (e.kind === 'process-line') return;
      show(e);
      if (e.kind === 'cluster-up') {
        ctx.stdout.write(`Controller running in the background (pid ${child.pid}); log: ${paths.controllerLog}\n`);
        ctx.stdout.write(`  sshcluster status --name ${name}    sshcluster down --name ${name}\n`);
        child.disconnect();
        child.unref();
        resolve(0);
      }
    });
    child.on('exit', (code) => {
      const tail = fs.existsSync(paths.controllerLog) ? fs.readFileSync(paths.controllerLog, 'utf8').trim().split('\n').slice(-8) : [];
      ctx.stderr.write(new ExpectedError(`the background controller exited (code ${code}) before the cluster was up`).message + '\n' + tail.map((l) => `  ${l}`).join('\n') + '\n');
      resolve(code === 2 ? 2 : 1);
    });
  });
}
