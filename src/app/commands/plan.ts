// `sshcluster plan HOSTS.yaml`: what `apply` would change in the running cluster.
// Exit 0: nothing; 3: changes pending (terraform plan -detailed-exitcode); 2: a bad file.
import { hasChanges, type SpecDiff } from '../../cluster/changes/spec-diff.js';
import type { ClusterSpec } from '../../config/spec.js';
import { jsonText } from '../../events/terminal-text.js';
import type { AppContext } from '../context.js';
import { loadSpec } from './cluster-spec.js';
import { findCluster, type FoundCluster } from './find-cluster.js';
import { diffWithCluster } from './plan-diff.js';
import { planText } from './plan-text.js';

export const PLAN_CHANGES_EXIT = 3;

export interface PlanOptions {
  file: string;
  name?: string;
  json: boolean;
  security?: 'tls' | 'none';
}

export interface Planned {
  found: FoundCluster;
  next: ClusterSpec;
  diff: SpecDiff;
}

/** The file against the cluster of its name (or --name): through its controller, else its state file. */
export async function planFor(ctx: AppContext, o: Omit<PlanOptions, 'json'>): Promise<Planned> {
  const file = loadSpec(ctx, o.file, undefined, o.security);
  const found = await findCluster(ctx, o.name ?? file.name, false);
  return { found, ...(await diffWithCluster(found.state, file, found.client)) };
}

export async function runPlan(ctx: AppContext, o: PlanOptions): Promise<number> {
  const { found, next, diff } = await planFor(ctx, o);
  found.client?.close();
  ctx.stdout.write(
    o.json
      ? jsonText({ cluster: found.name, changes: hasChanges(diff), ...diff }, 2) + '\n'
      : planText(found.name, o.file, diff, { recorded: !found.client, scheduler: next.schedulerHost.name }),
  );
  return hasChanges(diff) ? PLAN_CHANGES_EXIT : 0;
}
