// `sshcluster down`: through the controller when one answers; otherwise from the state
// file: visit every host of the cluster and stop exactly the processes tagged with its id.
import fs from 'node:fs/promises';
import type { ClusterState } from '../../control/state-file.js';
import { ExpectedError } from '../../errors.js';
import { leftoverLine } from '../../events/plain-sink.js';
import type { AppContext } from '../context.js';
import { findCluster } from './find-cluster.js';
import { ShellHostRunner } from '../remote/host-runner.js';
import type { TeardownResult } from '../../cluster/teardown.js';
import { shellOpener } from './up.js';

export async function runDown(ctx: AppContext, o: { name?: string; json: boolean }): Promise<number> {
  const found = await findCluster(ctx, o.name, false);
  let result: TeardownResult;
  if (found.client) {
    ctx.stdout.write(`Stopping cluster ${found.name} through its controller (pid ${found.state.controller?.pid}) …\n`);
    result = await found.client.call<TeardownResult>('down', {}, { timeoutMs: 0 });
    found.client.close();
  } else {
    ctx.stdout.write(`No controller answers for ${found.name}; stopping its processes from the state file …\n`);
    result = await downFromState(ctx, found.state);
    if (result.leftover.length === 0) await fs.rm(found.paths.stateFile, { force: true });
  }
  if (o.json) ctx.stdout.write(JSON.stringify({ name: found.name, ...result }) + '\n');
  else {
    if (result.forced.length) ctx.stdout.write(`  killed by force: ${result.forced.join(', ')}\n`);
    for (const l of result.leftover) ctx.stdout.write(leftoverLine(l) + '\n');
    if (!result.leftover.length) ctx.stdout.write(`Cluster ${found.name} stopped; verified: no process of it is left on any host.\n`);
  }
  return result.leftover.length ? 1 : 0;
}

const GRACE_MS = 10_000;

async function downFromState(ctx: AppContext, state: ClusterState): Promise<TeardownResult> {
  const open = shellOpener(ctx, state.spec);
  const hosts = [state.spec.schedulerHost, ...state.spec.workerHosts.filter((h) => h.name !== state.spec.schedulerHost.name)];
  const forced: string[] = [];
  const leftover: { host: string; pids: number[] }[] = [];
  await Promise.all(
    hosts.map(async (h) => {
      let runner: ShellHostRunner;
      try {
        runner = new ShellHostRunner({ host: h.name, clusterId: state.clusterId, setup: [], shell: await open(h) });
      } catch (err) {
        ctx.stderr.write(`  ${h.name}: cannot connect to check it: ${err instanceof ExpectedError ? err.message : String(err)}\n`);
        leftover.push({ host: h.name, pids: [] });
        return;
      }
      try {
        const r = await runner.stopTagged('all', { graceMs: GRACE_MS });
        if (r.forced.length) forced.push(`${h.name}: ${r.forced.length} process(es)`);
        const pids = r.left;
        if (pids.length) leftover.push({ host: h.name, pids });
        ctx.stdout.write(`  ${h.name}: ${pids.length ? `${pids.length} left` : 'clean'}\n`);
      } finally {
        runner.close();
      }
    }),
  );
  return { forced, leftover };
}
