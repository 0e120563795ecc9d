// `sshcluster down`: through the controller when one answers; otherwise from the state
// file: visit every host of the cluster and stop exactly the processes tagged with its id.
import fs from 'node:fs/promises';
import { jsonText, safeLine } from '../../events/terminal-text.js';
import type { ClusterRecord } from '../../control/state-file.js';
import { ExpectedError } from '../../errors.js';
import { removeCerts } from '../../tls/cert-store.js';
import { httpSocketPathFor, socketPathFor } from '../../control/paths.js';
import { leftoverLine } from '../../events/plain-sink.js';
import type { AppContext, Output } from '../context.js';
import { controllerGone, findCluster, type FoundCluster } from './find-cluster.js';
import { NoClusterError, UnknownClusterError } from './unknown-cluster.js';
import { clearHost } from '../transport/clear-host.js';
import type { TeardownResult } from '../../cluster/start-stop/teardown.js';
import { shellOpener } from './shell-opener.js';
import { keepsFilesOn } from '../controller/host-files.js';
import { hostsToClear, tmpdirsOn } from '../../cluster/changes/former-hosts.js';
import type { ShellPort } from '../../ssh/shell-port.js';

export async function runDown(ctx: AppContext, o: { name?: string; json: boolean }): Promise<number> {
  // Cut short by `down | head -1`, it would leave the cluster half stopped.
  ctx.onReaderGone();
  // With --json, stdout is the one JSON document; progress goes to stderr.
  const progress = o.json ? ctx.stderr : ctx.stdout;
  let found: FoundCluster;
  try {
    found = await findCluster(ctx, o.name, false);
  } catch (err) {
    // Nothing to stop is not a failure (as docker compose down): scripts can always run it,
    // a clean-up before `up` on a fresh machine included. A name this machine never had is
    // said with the clusters there are, so a typo that stops nothing is seen.
    if (!(err instanceof NoClusterError || err instanceof UnknownClusterError)) throw err;
    ctx.stderr.write(`sshcluster: ${err.message}; nothing to stop\n`);
    if (err instanceof UnknownClusterError && err.hint) ctx.stderr.write(`  hint: ${err.hint}\n`);
    if (o.json) ctx.stdout.write(jsonText({ name: null, forced: [], leftover: [] }) + '\n');
    return 0;
  }
  let result: TeardownResult;
  if (found.client) {
    progress.write(`Stopping cluster ${found.name} through its controller (pid ${found.state.controller?.pid}) …\n`);
    result = await found.client.call('down', undefined, { timeoutMs: 0 });
    found.client.close();
    await controllerGone(found, CONTROLLER_EXIT_MS);
  } else {
    progress.write(`No controller answers for ${found.name}; stopping its processes from the state file …\n`);
    result = await downFromState(ctx, found.state, progress);
    if (result.leftover.length === 0) {
      // What the dead controller would have removed at its stop: its sockets too.
      const gone = [found.paths.stateFile, socketPathFor(found.paths), httpSocketPathFor(found.paths)];
      await Promise.all([...gone.map((f) => fs.rm(f, { force: true })), removeCerts(found.paths.dir)]);
    }
  }
  if (o.json) ctx.stdout.write(jsonText({ name: found.name, ...result }) + '\n');
  else {
    if (result.forced.length) ctx.stdout.write(`  killed by force: ${result.forced.join(', ')}\n`);
    if (result.droppedResults)
      ctx.stdout.write(
        `  ${result.droppedResults} result(s) held only in worker memory were dropped with the workers\n`,
      );
    for (const l of result.leftover) ctx.stdout.write(leftoverLine(l) + '\n');
    if (!result.leftover.length)
      ctx.stdout.write(`Cluster ${found.name} stopped; verified: no process of it is left on any host.\n`);
  }
  return result.leftover.length ? 1 : 0;
}

const GRACE_MS = 10_000;
/** How long `down` waits, after the controller's reply, for it to remove its state and exit. */
const CONTROLLER_EXIT_MS = 10_000;

async function downFromState(ctx: AppContext, state: ClusterRecord, progress: Output): Promise<TeardownResult> {
  const open = shellOpener(ctx, state.spec);
  const former = state.formerHosts ?? [];
  const forced: string[] = [];
  const leftover: { host: string; pids: number[] }[] = [];
  const unreached = new Set(state.unreached ?? []);
  await Promise.all(
    hostsToClear(state.spec, former).map(async (h) => {
      let shell: ShellPort;
      try {
        shell = await open(h);
      } catch (err) {
        const why = safeLine(err instanceof ExpectedError ? err.message : String(err));
        // Never reached by any of its controllers: nothing of the cluster can be there.
        if (unreached.has(h.name))
          return progress.write(
            `  ${h.name}: never reached by this cluster, so nothing of it is there (cannot connect now: ${why})\n`,
          );
        ctx.stderr.write(`  ${h.name}: cannot connect to check it: ${why}\n`);
        leftover.push({ host: h.name, pids: [] });
        return;
      }
      const tmpdirs = tmpdirsOn(state.spec, former, h.name);
      const r = await clearHost(shell, h, {
        clusterId: state.clusterId,
        keepsFiles: keepsFilesOn(state.spec),
        tmpdirs,
        graceMs: GRACE_MS,
      });
      if (r.forced.length) forced.push(`${h.name}: ${r.forced.length} process(es)`);
      const pids = r.left;
      if (pids.length) leftover.push({ host: h.name, pids });
      if (r.filesError) ctx.stderr.write(`  ${h.name}: ${safeLine(r.filesError)}\n`);
      const found = r.stopped.length ? `stopped ${r.stopped.length} process(es) of the cluster; ` : '';
      progress.write(`  ${h.name}: ${found}${pids.length ? `${pids.length} left` : 'clean'}\n`);
    }),
  );
  return { forced, leftover };
}
