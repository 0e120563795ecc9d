// `sshcluster adapt`: switch a running cluster to adaptive scaling (or off, or ask what
// one step would do with --dry-run).
import { adaptiveSettingsText } from '../../adaptive/settings-text.js';
import type { AppContext } from '../context.js';
import type { AdaptParams } from '../controller/control-api.js';
import { findCluster } from './find-cluster.js';

export async function runAdapt(
  ctx: AppContext,
  o: { name?: string; params: AdaptParams; json: boolean },
): Promise<number> {
  const { client, name } = await findCluster(ctx, o.name, true);
  try {
    const r = await client!.call('adapt', o.params, { timeoutMs: 60_000 });
    for (const w of r.warnings ?? []) ctx.stderr.write(`warning: ${w}\n`);
    if (o.json) ctx.stdout.write(JSON.stringify(r, null, 2) + '\n');
    else if (r.dryRun) {
      const what = r.dryRun.decision === 'none' ? 'would change nothing' : `would scale ${r.dryRun.decision}`;
      ctx.stdout.write(`${name}: ${what} (target ${r.dryRun.target}): ${r.dryRun.reason}\n`);
    } else if (!r.enabled) ctx.stdout.write(`${name}: adaptive scaling off; the worker count stays where it is\n`);
    else ctx.stdout.write(`${name}: adaptive ${adaptiveSettingsText(r.spec!)}\n`);
    return 0;
  } finally {
    client!.close();
  }
}
