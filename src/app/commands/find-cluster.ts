// Which cluster a command means: `--name`, or the only one with a live controller.
import fs from 'node:fs';
import { hasChanges } from '../../cluster/changes/spec-diff.js';
import type { ClusterSpec } from '../../config/spec.js';
import { connectControl } from '../../control/client.js';
import { checkClusterDirs, checkStateRoot, clusterPaths, stateRoot, type ClusterPaths } from '../../control/paths.js';
import { listClusters, readState, type ClusterRecord } from '../../control/state-file.js';
import { quoteWord } from '../../dask/remote-command.js';
import { ExpectedError, UsageError } from '../../errors.js';
import type { AppContext } from '../context.js';
import type { ControlApi, ControlApiClient } from '../controller/control-api.js';
import { diffWithCluster } from './plan-diff.js';
import { missingCluster, NoClusterError } from './unknown-cluster.js';

export interface FoundCluster {
  name: string;
  paths: ClusterPaths;
  state: ClusterRecord;
  /** Connected when a controller answers; undefined when it is gone. */
  client?: ControlApiClient;
}

async function tryConnect(state: ClusterRecord): Promise<ControlApiClient | undefined> {
  if (!state.controller) return undefined;
  try {
    return await connectControl<ControlApi>(state.controller.socket, { timeoutMs: 2_000, cluster: state.name });
  } catch {
    return undefined;
  }
}

/**
 * Refuses when a controller of `name` answers. Returns the state file a dead one left
 * (its processes may still be running, waiting to be adopted), else undefined.
 */
export async function refuseIfRunning(
  paths: ClusterPaths,
  name: string,
  file?: { path: string; spec: ClusterSpec },
): Promise<ClusterRecord | undefined> {
  await checkClusterDirs(paths);
  const state = await readState(paths.stateFile, { name });
  if (!state) return undefined;
  const client = await tryConnect(state);
  if (client) {
    let changes: boolean | undefined;
    try {
      changes = file && hasChanges((await diffWithCluster(state, file.spec, client)).diff);
    } finally {
      client.close();
    }
    const change = !file
      ? ''
      : changes
        ? `; to change it to ${file.path}, sshcluster plan ${quoteWord(file.path)} shows what would change and apply makes it live`
        : ` (it runs ${file.path} as it is: nothing to apply)`;
    throw new ExpectedError(`a cluster named "${name}" is already running (controller pid ${state.controller?.pid})`, {
      hint: `use sshcluster status/scale/down --name ${name}${change}; or start this one under another name with --name`,
    });
  }
  // Adopting the processes of a controller that is alive but slow to answer would put
  // them under two controllers.
  const pid = state.controller?.pid;
  if (pid !== undefined && isSshclusterProcess(pid)) {
    throw new ExpectedError(
      `the controller of "${name}" (pid ${pid}) is running but does not answer on its control socket`,
      {
        hint: `try again, or stop it (kill ${pid}) to let this up adopt its processes`,
      },
    );
  }
  return state;
}

/**
 * Resolves once the controller that answered `down` is gone: its state file removed
 * (after a clean teardown) or its process ended, which both come after its reply; at
 * most `ms`. What runs next (apply --recreate's up) then never finds the old state
 * file and takes the old cluster's spec from it.
 */
export async function controllerGone(
  found: Pick<FoundCluster, 'paths' | 'state'>,
  ms: number,
  pollMs = 20,
): Promise<void> {
  const pid = found.state.controller?.pid;
  const end = Date.now() + ms;
  while (pid !== undefined && isSshclusterProcess(pid) && fs.existsSync(found.paths.stateFile) && Date.now() < end) {
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/** Linux only (elsewhere: assume gone); the command line guards against a reused PID (a zombie has none). */
function isSshclusterProcess(pid: number): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('sshcluster');
  } catch {
    return false;
  }
}

/** `requireController`: status/scale/attach need one; down and logs work without. */
/**
 * This machine's clusters (their state files) whose scheduler runs on `hostname`: who
 * likely holds a scheduler or dashboard port there (`check`, a failed `up`). Empty when
 * the state cannot be read.
 */
export async function clustersOn(ctx: AppContext, hostname: string): Promise<ClusterRecord[]> {
  const clusters = await listClusters(stateRoot(ctx.env, ctx.homedir)).catch(() => []);
  return clusters.flatMap((c) => (c.state?.spec.schedulerHost.connect.hostname === hostname ? [c.state] : []));
}

export async function findCluster(
  ctx: AppContext,
  name: string | undefined,
  requireController: boolean,
): Promise<FoundCluster> {
  const root = stateRoot(ctx.env, ctx.homedir);
  if (name !== undefined) {
    const paths = clusterPaths(root, name);
    // A socket in a dir someone else controls could be their listener.
    await checkClusterDirs(paths);
    const state = await readState(paths.stateFile, { name });
    if (!state) throw await missingCluster(root, name);
    const client = await tryConnect(state);
    if (!client && requireController) throw noController(state);
    return { name, paths, state, client };
  }
  await checkStateRoot(root);
  const listed = (await listClusters(root)).filter((c) => c.state);
  for (const c of listed) await checkClusterDirs(clusterPaths(root, c.name));
  if (
    requireController &&
    listed.length &&
    !(await Promise.all(listed.map((c) => tryConnect(c.state!).then((cl) => (cl?.close(), cl !== undefined))))).some(
      Boolean,
    )
  ) {
    const names = listed.map((c) => c.name).join(', ');
    throw new ExpectedError(`no controller is running (state left by: ${names})`, {
      hint: leftHint(listed[0]!.state!),
    });
  }
  const found: FoundCluster[] = [];
  for (const c of listed) {
    const client = await tryConnect(c.state!);
    if (client || !requireController)
      found.push({ name: c.name, paths: clusterPaths(root, c.name), state: c.state!, client });
  }
  const live = found.filter((f) => f.client);
  const pick = live.length === 1 ? live : found;
  if (pick.length === 1) {
    for (const f of found) if (f !== pick[0]) f.client?.close();
    return pick[0]!;
  }
  for (const f of found) f.client?.close();
  if (pick.length === 0)
    throw new NoClusterError('no cluster is running on this machine', {
      hint: 'start one with sshcluster up [HOSTS.yaml]',
    });
  throw new UsageError(`${pick.length} clusters: ${pick.map((f) => f.name).join(', ')}; say which with --name`);
}

function noController(state: ClusterRecord): ExpectedError {
  return new ExpectedError(`no controller is running for cluster "${state.name}"`, { hint: leftHint(state) });
}

/**
 * Both ways on from a dead controller: a new one that adopts its processes, or down. A
 * foreground `up`'s processes stopped with it (their orphan grace is 0): nothing to adopt.
 */
export function leftHint(state: ClusterRecord): string {
  const file = state.source ? `${quoteWord(state.source)} ` : '';
  const name = quoteWord(state.name);
  const up = `sshcluster up ${file}--name ${name}`;
  if (state.controller?.orphanGraceS === 0) {
    return `its controller was a foreground up, and its processes stopped with it; sshcluster down --name ${name} verifies that nothing is left and clears this record, ${up} starts the cluster again`;
  }
  return `${up} --detach starts a new controller that adopts what is still running; sshcluster down --name ${name} stops it`;
}
