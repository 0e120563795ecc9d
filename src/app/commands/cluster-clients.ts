// list, status, scale, logs, attach: thin clients of a running controller.
import fs from 'node:fs';
import { KEEP_RUNS, listRuns, pickRun, runDir } from '../../control/log-runs.js';
import { LogStore } from '../../control/log-store.js';
import { listClusters, type ClusterRecord } from '../../control/state-file.js';
import { checkClusterDirs, checkStateRoot, clusterPaths, stateRoot } from '../../control/paths.js';
import { connectControl } from '../../control/client.js';
import { ExpectedError, UsageError } from '../../errors.js';
import { plainSink } from '../../events/plain-sink.js';
import { logSource } from '../../events/log-source.js';
import { jsonText, safeLine } from '../../events/terminal-text.js';
import type { AppContext } from '../context.js';
import { dashboardWanted } from '../dashboard/dashboard.js';
import { findCluster, type FoundCluster } from './find-cluster.js';
import { stoppedClusters } from './unknown-cluster.js';
import type { ControlApiClient } from '../controller/control-api.js';
import type { StatusJson } from '../../control/status-document.js';
import { statusText } from './status-text.js';
import { droppedLine, heldError } from './held-text.js';

export async function runList(ctx: AppContext, o: { json: boolean }): Promise<number> {
  const rows = [];
  const root = stateRoot(ctx.env, ctx.homedir);
  await checkStateRoot(root);
  const withState = await listClusters(root);
  for (const c of withState) {
    let live = false;
    // Not connected to when its dir is not ours: the socket could be someone else's.
    const unsafe = await checkClusterDirs(clusterPaths(root, c.name)).then(
      () => undefined,
      (err: Error) => err.message,
    );
    if (unsafe) c.error = unsafe;
    else if (c.state?.controller) {
      try {
        (await connectControl(c.state.controller.socket, { timeoutMs: 1_000 })).close();
        live = true;
      } catch {
        live = false;
      }
    }
    const controller = unsafe ? 'refused' : live ? 'running' : c.state ? 'gone' : 'unreadable';
    rows.push({
      name: c.name,
      controller,
      pid: c.state?.controller?.pid ?? null,
      schedulerAddress: c.state?.schedulerAddress ?? null,
      source: c.state?.source ?? null,
      error: c.error ?? null,
    });
  }
  // Those that ran here and stopped: `logs --name` reads them, and a mistyped --name lists them.
  for (const name of stoppedClusters(root, new Set(withState.map((c) => c.name)))) {
    rows.push({ name, controller: 'stopped', pid: null, schedulerAddress: null, source: null, error: null });
  }
  rows.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (o.json) ctx.stdout.write(jsonText(rows, 2) + '\n');
  // The same words whether or not the state dir exists yet.
  else if (!rows.length) ctx.stdout.write('no clusters on this machine\n');
  else {
    ctx.stdout.write(`${'NAME'.padEnd(20)} ${'CONTROLLER'.padEnd(10)} SCHEDULER\n`);
    for (const r of rows)
      ctx.stdout.write(
        safeLine(
          `${r.name.padEnd(20)} ${r.controller.padEnd(10)} ${r.schedulerAddress ?? '-'}${r.error ? `  (${r.error})` : ''}`,
        ) + '\n',
      );
  }
  return 0;
}

export async function runStatus(ctx: AppContext, o: { name?: string; json: boolean }): Promise<number> {
  const { client } = await findCluster(ctx, o.name, true);
  try {
    const st = await client!.call('status');
    ctx.stdout.write(o.json ? jsonText(st, 2) + '\n' : statusText(st));
    return 0;
  } finally {
    client!.close();
  }
}

export async function runScale(
  ctx: AppContext,
  o: { name?: string; n: number; timeoutMs: number; force?: boolean },
): Promise<number> {
  const { client, name, state } = await findCluster(ctx, o.name, true);
  try {
    const r = await client!.call('scale', { n: o.n, ...(o.force ? { force: true } : {}) }, { timeoutMs: 0 });
    if (r.adaptiveOff)
      ctx.stderr.write(
        `${name}: adaptive scaling is now off (scale sets a fixed size; sshcluster adapt turns it back on)\n`,
      );
    const running = await waitSettled(client!, name, r.desired, o.timeoutMs);
    if (r.dropped?.length) ctx.stderr.write(safeLine(droppedLine(name, r.dropped)) + '\n');
    if (r.held?.length) throw heldError(name, r.held, [], 'scale');
    if (r.desired < o.n) {
      throw new ExpectedError(`${name}: ${running} of ${o.n} worker(s) running: ${r.message ?? 'no room for more'}`, {
        hint: state.spec.local
          ? `a local cluster has the room it started with (up --nworkers, by default from this machine's cores, as Dask's LocalCluster); for more: sshcluster down --name ${name}, then sshcluster up --nworkers N`
          : 'more room: a larger max_workers or more hosts in the host file (then sshcluster apply FILE), or sshcluster undrain HOST for a drained one',
      });
    }
    ctx.stdout.write(`${name}: ${running} worker(s) running\n`);
    return 0;
  } finally {
    client!.close();
  }
}

/**
 * Waits until `desired` workers run and none is starting or retiring; the count running.
 * Workers kept on a host that is unreachable cannot start until it answers again (the
 * controller reconnects, then starts them): not waited for, they fail the wait at once,
 * named with their host's error.
 */
export async function waitSettled(
  client: ControlApiClient,
  name: string,
  desired: number | undefined,
  timeoutMs: number,
  time: WaitTime = realTime,
): Promise<number> {
  const deadline = time.now() + timeoutMs;
  for (;;) {
    const st = await client.call('status');
    const want = desired ?? st.desiredWorkers;
    const running = st.workers.filter((w) => w.state === 'running').length;
    const unreachable = new Set(st.hosts.filter((h) => h.state === 'unreachable').map((h) => h.name));
    const blocked = st.workers.filter((w) => w.state !== 'running' && unreachable.has(w.host));
    // A held worker (the scheduler could not move its results) is not waited for: it stays until they can move.
    const settled = st.workers.every(
      (w) => w.state === 'running' || w.state === 'stopped' || w.state === 'held' || unreachable.has(w.host),
    );
    if (settled && running + blocked.length === want) {
      if (!blocked.length) return running;
      throw new ExpectedError(
        `${name}: ${running} of ${want} worker(s) running; ${blocked.length} wait for a host that does not answer${notRunning(st)}`,
        {
          hint: 'they start when their host answers again (the controller keeps reconnecting); sshcluster status shows it',
        },
      );
    }
    if (time.now() > deadline) {
      throw new ExpectedError(
        `${name}: ${running} of ${want} worker(s) running after ${timeoutMs / 1000}s${notRunning(st)}`,
        { hint: 'sshcluster status shows which workers are not running and why' },
      );
    }
    await time.sleep(500);
  }
}

/** The clock a wait polls on: injected so a unit test steps it instead of sleeping. */
export interface WaitTime {
  now(): number;
  sleep(ms: number): Promise<void>;
}

// A ref'd timer, as before: the wait itself keeps the command alive.
const realTime: WaitTime = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((res) => setTimeout(res, ms)),
};

/**
 * "; not running: w-1 (starting) on h2 (connecting: connect EHOSTUNREACH …)": what the
 * wait is stuck on (a stopped worker only when its host does not answer).
 */
function notRunning(st: StatusJson): string {
  const hosts = new Map(st.hosts.map((h) => [h.name, h]));
  const parts = st.workers
    .filter((w) => w.state !== 'running' && (w.state !== 'stopped' || hosts.get(w.host)?.state === 'unreachable'))
    .slice(0, 5)
    .map((w) => {
      const h = hosts.get(w.host);
      const host = h && h.state !== 'up' ? ` (${h.state}${h.lastError ? `: ${h.lastError}` : ''})` : '';
      return `${w.name} (${w.state}) on ${w.host}${host}`;
    });
  return parts.length ? `; not running: ${safeLine(parts.join(', '))}` : '';
}

export async function runLogs(
  ctx: AppContext,
  o: { name?: string; target?: string; follow: boolean; tail: number; previous?: boolean },
): Promise<number> {
  if (o.previous && o.follow)
    throw new UsageError('logs: --previous shows a run that has ended; it cannot be followed (-f)');
  const found = await clusterForLogs(ctx, o.name, o.follow);
  const hostOf = new Map((found.state?.processes ?? []).map((p) => [p.name, p.host]));
  const runs = listRuns(found.paths.logsDir);
  const run = pickRun(runs, found.state?.runId, o.previous === true);
  if (o.previous && !run) {
    found.client?.close();
    throw new ExpectedError(`no earlier run of cluster ${found.name} is recorded`, {
      hint: `the logs of the last ${KEEP_RUNS} runs are kept`,
    });
  }
  const store = run ? new LogStore(runDir(found.paths.logsDir, run)) : undefined;
  const recorded = store?.names() ?? [];
  const match = (n: string) =>
    !o.target || n === o.target || hostOf.get(n) === o.target || n.startsWith(`${o.target}-`);
  const names = recorded.filter(match);
  const which = o.previous ? `the run before the current one of cluster ${found.name}` : `cluster ${found.name}`;
  if (!names.length && !o.follow) {
    found.client?.close();
    // A name that matches none of the recorded ones is a typo (exit 2), as exec's --hosts.
    const Err = o.target && recorded.length ? UsageError : ExpectedError;
    throw new Err(`no recorded logs${o.target ? ` for "${o.target}"` : ''} in ${which}`, {
      hint: `recorded: ${recorded.join(', ') || 'none'}`,
    });
  }
  for (const n of names)
    for (const line of await store!.tail(n, o.tail))
      ctx.stdout.write(`${safeLine(logSource(n, hostOf.get(n)))} │ ${safeLine(line)}\n`);
  if (!o.follow) {
    found.client?.close();
    return 0;
  }
  await found.client!.subscribe((e) => {
    if (e.kind === 'process-line' && match(e.name))
      ctx.stdout.write(`${safeLine(logSource(e.name, e.host))} │ ${safeLine(e.line)}\n`);
  });
  return 0;
}

/**
 * The cluster whose logs to read: as other commands find it, or, for recorded logs,
 * also one that has no state any more (after `down`) but whose runs' logs are kept.
 */
async function clusterForLogs(
  ctx: AppContext,
  name: string | undefined,
  follow: boolean,
): Promise<Omit<FoundCluster, 'state'> & { state?: ClusterRecord }> {
  try {
    return await findCluster(ctx, name, follow);
  } catch (err) {
    if (follow || !(err instanceof ExpectedError)) throw err;
    const root = stateRoot(ctx.env, ctx.homedir);
    const names = name !== undefined ? [name] : clusterDirs(root);
    const withRuns = names.filter((n) => listRuns(clusterPaths(root, n).logsDir).length > 0);
    // None running and several recorded: which one is the user's to say (exit 2, as for
    // several running clusters).
    if (withRuns.length > 1)
      throw new UsageError(
        `logs: no cluster is running, and ${withRuns.length} have recorded logs: ${withRuns.sort().join(', ')}`,
        { hint: 'name one: sshcluster logs --name NAME' },
      );
    if (withRuns.length !== 1) throw err;
    return { name: withRuns[0]!, paths: clusterPaths(root, withRuns[0]!) };
  }
}

function clusterDirs(root: string): string[] {
  try {
    return fs
      .readdirSync(root, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
  } catch {
    return [];
  }
}

export async function runAttach(ctx: AppContext, o: { name?: string; tui?: boolean }): Promise<number> {
  const { client, name } = await findCluster(ctx, o.name, true);
  // The controller hands over its newest lines with the subscription: neither view starts empty.
  if (dashboardWanted(ctx, o))
    return (await import('../dashboard/attach-dashboard.js')).attachDashboard(ctx, client!, name);
  const sink = plainSink((t) => ctx.stdout.write(t));
  ctx.stderr.write(`Attached to ${name}; Ctrl-C detaches (the cluster keeps running).\n`);
  const off = ctx.onSignal(() => client!.close());
  try {
    await client!
      .subscribe(sink, { onSubscribed: (r) => (ctx.stdout.write(statusText(r.status)), r.recentLines.forEach(sink)) })
      .catch(() => undefined);
  } finally {
    off();
  }
  return 0;
}
