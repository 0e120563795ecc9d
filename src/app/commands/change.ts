// apply, drain/undrain and restart --rolling: a running cluster changed without stopping
// it, through its controller. plan.ts says what apply would do; apply prints that first.
import { hasChanges } from '../../cluster/changes/spec-diff.js';
import { hostMatcher } from '../../config/hosts/host-match.js';
import { ExpectedError, UsageError } from '../../errors.js';
import { jsonText, safeLine } from '../../events/terminal-text.js';
import type { AppContext } from '../context.js';
import type { ControlApiClient } from '../controller/control-api.js';
import { ROLL_NOTICE } from '../../cluster/changes/cluster-changes.js';
import { waitSettled } from './cluster-clients.js';
import { droppedLine, heldError } from './held-text.js';
import { findCluster } from './find-cluster.js';
import { planFor } from './plan.js';
import { planText } from './plan-text.js';

/** --max-unavailable: a count, or a percentage of the cluster's workers (at least 1). */
export type Unavailable = { count: number } | { percent: number };

export interface ApplyOptions {
  file: string;
  name?: string;
  json: boolean;
  security?: 'tls' | 'none';
  maxUnavailable: Unavailable;
  timeoutMs: number;
  /** --recreate: a change only a new cluster can take is made by down, then up --detach. */
  recreate?: { mainScript: string };
  /** --force: retire workers even when the scheduler cannot move their results (lost, and said). */
  force?: boolean;
}

export async function runApply(ctx: AppContext, o: ApplyOptions): Promise<number> {
  const { found, next, diff } = await planFor(ctx, o);
  const client = found.client;
  try {
    if (!o.json)
      ctx.stdout.write(planText(found.name, o.file, diff, { applying: true, scheduler: next.schedulerHost.name }));
    if (!hasChanges(diff)) return 0;
    if (diff.recreate.length) {
      if (!o.recreate)
        throw new ExpectedError(`${found.name}: apply refuses: ${diff.recreate.join('; ')}`, {
          hint: `apply --recreate stops the cluster (tasks and results in memory are lost) and starts it anew from ${o.file}`,
        });
      client?.close();
      return await recreate(ctx, found.name, o, o.recreate.mainScript);
    }
    if (!client)
      throw new ExpectedError(`${found.name}: no controller is running to apply the change`, {
        hint: `sshcluster up ${o.file} --name ${found.name} --detach adopts the cluster first`,
      });
    const maxUnavailable = await unavailableCount(client, o.maxUnavailable);
    const r = await client.call(
      'apply',
      { spec: next, maxUnavailable, timeoutMs: o.timeoutMs, ...(o.force ? { force: true } : {}) },
      { timeoutMs: 0 },
    );
    if (o.json) ctx.stdout.write(jsonText({ cluster: found.name, ...r }, 2) + '\n');
    for (const f of r.failedHosts)
      ctx.stderr.write(safeLine(`warning: ${f.host} could not be added: ${f.reason}`) + '\n');
    if (r.roll?.kind === 'stopped') {
      throw new ExpectedError(`${found.name}: the rolling restart stopped at ${r.roll.failed}: ${r.roll.reason}`, {
        hint: `${r.roll.restarted.length} worker(s) run the new spec; ${r.roll.notReached.length + 1} keep the old one (sshcluster plan ${o.file} shows what is left)`,
      });
    }
    const running = await waitSettled(client, found.name, undefined, o.timeoutMs);
    if (!o.json)
      ctx.stdout.write(
        `${found.name}: applied; ${running} worker(s) running${r.roll ? `, ${r.roll.restarted.length} restarted` : ''}\n`,
      );
    const dropped = [...(r.dropped ?? []), ...(r.roll?.dropped ?? [])];
    if (dropped.length) ctx.stderr.write(safeLine(droppedLine(found.name, dropped)) + '\n');
    if (r.held?.length)
      throw heldError(
        found.name,
        r.held,
        r.diff.hostsRemoved.filter((h) => h !== next.schedulerHost.name),
        'apply',
      );
    return r.failedHosts.length ? 1 : 0;
  } finally {
    client?.close();
  }
}

export async function runDrain(
  ctx: AppContext,
  o: { hosts: string[]; name?: string; undrain: boolean; timeoutMs: number; force?: boolean },
): Promise<number> {
  const { client, name } = await findCluster(ctx, o.name, true);
  try {
    const r = await client!.call(
      'drain',
      { hosts: o.hosts, undrain: o.undrain, ...(o.force ? { force: true } : {}) },
      { timeoutMs: 0 },
    );
    const held = r.held ?? [];
    const dropped = r.dropped ?? [];
    for (const h of r.unknown) ctx.stderr.write(safeLine(`warning: ${h}: not a worker host of ${name}`) + '\n');
    const nothing = held.length || dropped.length || r.retired.length ? '' : ': nothing to do';
    for (const h of r.unchanged)
      ctx.stdout.write(
        safeLine(`${name}: ${h} ${o.undrain ? 'is not drained' : 'was drained already'}${nothing}`) + '\n',
      );
    const hosts = o.hosts.filter((h) => !r.unknown.includes(h) && !r.unchanged.includes(h)).join(', ');
    if (!hosts && !held.length && !dropped.length && !r.retired.length) return r.unknown.length ? 1 : 0; // each was said above
    if (o.undrain && !r.replaced.length && !r.kept?.length) {
      ctx.stdout.write(safeLine(`${name}: ${hosts} back in placement`) + '\n');
      return 0;
    }
    const running = await waitSettled(client!, name, undefined, o.timeoutMs);
    const short = r.short ? `; ${r.short} short for want of room, started again at undrain` : '';
    const retired = r.retired.filter((w) => !held.some((k) => k.name === w)).length;
    // A held worker wanted again still runs: kept, not started (issue: undrain counted it as started).
    const kept = r.kept?.length ? `, ${r.kept.length} held worker(s) kept running` : '';
    const line = o.undrain
      ? `${name}: ${hosts} back in placement; ${r.replaced.length} worker(s) the drain had no room for started again${kept}; ${running} running`
      : `${name}: drained ${hosts || o.hosts.join(', ')}: ${retired} worker(s) retired, ${r.replaced.length} started elsewhere${kept}${short}; ${running} running`;
    ctx.stdout.write(safeLine(line) + '\n');
    if (dropped.length) ctx.stderr.write(safeLine(droppedLine(name, dropped)) + '\n');
    if (held.length)
      throw heldError(
        name,
        held,
        o.hosts.filter((h) => !r.unknown.includes(h)),
        'drain',
      );
    return 0;
  } finally {
    client!.close();
  }
}

export async function runRestart(
  ctx: AppContext,
  o: { name?: string; hosts?: string; maxUnavailable: Unavailable; timeoutMs: number; force?: boolean },
): Promise<number> {
  const { client, name } = await findCluster(ctx, o.name, true);
  try {
    const st = await client!.call('status');
    const matches = o.hosts === undefined ? () => true : hostsOption(o.hosts);
    const workers = st.workers.filter((w) => w.state !== 'stopped' && matches(w.host)).map((w) => w.name);
    if (!workers.length) {
      const hosts = [...new Set(st.workers.filter((w) => w.state !== 'stopped').map((w) => w.host))];
      throw new UsageError(
        `restart: no worker${o.hosts ? ` on a host matching "${o.hosts}"` : ''} in ${name}`,
        hosts.length
          ? { hint: `its workers run on: ${hosts.join(', ')}` }
          : { hint: `${name} runs no worker now: \`sshcluster scale N --name ${name}\` starts some` },
      );
    }
    const maxUnavailable = await unavailableCount(client!, o.maxUnavailable);
    await followRoll(client!, (line) => ctx.stdout.write(`${safeLine(line)}\n`));
    const r = await client!.call(
      'roll',
      { workers, maxUnavailable, timeoutMs: o.timeoutMs, ...(o.force ? { force: true } : {}) },
      { timeoutMs: 0 },
    );
    if (r.dropped?.length) ctx.stderr.write(safeLine(droppedLine(name, r.dropped)) + '\n');
    if (r.kind === 'stopped')
      throw new ExpectedError(`${name}: the rolling restart stopped at ${r.failed}: ${r.reason}`, {
        hint: `${r.restarted.length} of ${workers.length} restarted`,
      });
    const gone = r.gone?.length ? `; ${r.gone.join(', ')} retired meanwhile (not restarted)` : '';
    ctx.stdout.write(
      `${name}: ${r.restarted.length} worker(s) restarted, ${Math.min(maxUnavailable, workers.length)} at a time${gone}\n`,
    );
    return 0;
  } finally {
    client!.close();
  }
}

/**
 * The roll's progress, printed as the controller says it ("restarting n1-0 (1 of 6)",
 * "restarted 1/6: n1-0 (12 s)"): a restart of many workers takes minutes. One change
 * runs at a time, so the roll's notices while ours runs are ours.
 */
async function followRoll(client: ControlApiClient, write: (line: string) => void): Promise<void> {
  let ready!: () => void;
  const subscribed = new Promise<void>((r) => (ready = r));
  void client
    .subscribe(
      (e) => {
        if (e.kind === 'notice' && e.message.startsWith(ROLL_NOTICE)) write(e.message.slice(ROLL_NOTICE.length));
      },
      { onSubscribed: () => ready() },
    )
    // Progress is a courtesy: without it the roll's reply still says how it ended.
    .catch(() => undefined)
    .finally(() => ready());
  await subscribed;
}

async function unavailableCount(client: ControlApiClient, u: Unavailable): Promise<number> {
  if ('count' in u) return u.count;
  const st = await client.call('status');
  return Math.max(1, Math.floor((st.desiredWorkers * u.percent) / 100));
}

function hostsOption(pattern: string): (host: string) => boolean {
  try {
    return hostMatcher(pattern);
  } catch (err) {
    throw new UsageError(`--hosts ${JSON.stringify(pattern)}: ${(err as Error).message}`);
  }
}

/** down, then the same `up FILE --detach` a user would type: every process starts anew. */
async function recreate(ctx: AppContext, name: string, o: ApplyOptions, mainScript: string): Promise<number> {
  ctx.stdout.write(`${name}: recreating: stopping the running cluster (its tasks and results in memory are lost)\n`);
  const { runDown } = await import('./down.js');
  const down = await runDown(ctx, { name, json: false });
  if (down !== 0)
    throw new ExpectedError(`${name}: down did not end cleanly (exit ${down}); not starting the new cluster`, {
      hint: `sshcluster down --name ${name} shows what is left`,
    });
  const { runDetached } = await import('./detach.js');
  const childArgs = ['up', o.file, '--name', name, ...(o.security ? ['--security', o.security] : [])];
  return runDetached(ctx, { file: o.file, name, security: o.security, mainScript, childArgs });
}
