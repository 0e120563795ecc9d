// How `plan` (and `apply` before it acts) says what a changed host file does to a
// running cluster, one line per host, terraform-style: + added, - drained, ~ changed,
// ! needs a new cluster.
import type { SpecDiff } from '../../cluster/changes/spec-diff.js';
import { hasChanges } from '../../cluster/changes/spec-diff.js';
import { safeLine } from '../../events/terminal-text.js';

/**
 * `applying`: said by `apply`, which carries it out next (else by `plan`, which says how).
 * `recorded`: the cluster's controller is gone, so the file is held against its state file.
 * `scheduler`: the scheduler's host, which stays when it stops being a worker host too.
 */
export function planText(
  cluster: string,
  file: string,
  d: SpecDiff,
  o: { applying?: boolean; recorded?: boolean; scheduler?: string } = {},
): string {
  const against = o.recorded ? 'the cluster as last recorded' : 'the running cluster';
  // A re-adopting up keeps the spec the processes run (up-prepare.ts, runningSpec): apply comes after.
  const gone = `${cluster}'s controller is not running: sshcluster up ${file} --detach starts one that takes the cluster over as it runs${hasChanges(d) ? `, then sshcluster apply ${file} carries this out` : ''}`;
  if (!hasChanges(d))
    return (
      [`${cluster}: ${file} matches ${against}; nothing to apply`, ...(o.recorded ? [gone] : [])]
        .map(safeLine)
        .join('\n') + '\n'
    );
  const lines = [`${cluster}: ${file} differs from ${against}:`];
  const count = (host: string) => d.counts.find((c) => c.host === host);
  const runs = (host: string) => (host === o.scheduler ? ' (runs the scheduler)' : '');
  for (const host of d.hostsAdded)
    lines.push(
      `  + host ${host}${runs(host)}: ${count(host)?.to ?? 0} worker(s)${count(host) ? '' : ' (adaptive places into its slots)'}`,
    );
  for (const host of d.hostsRemoved) {
    const n = count(host)?.from ?? 0;
    const drain = n ? `drain ${n} worker(s) (retired through the scheduler, data moved)` : 'no workers there';
    lines.push(
      `  - host ${host}${runs(host)}: ${drain}${host === o.scheduler ? '; the host stays for the scheduler' : n ? ', then leave it' : '; leave it'}`,
    );
  }
  for (const c of d.counts) {
    if (d.hostsAdded.includes(c.host) || d.hostsRemoved.includes(c.host)) continue;
    lines.push(`  ~ host ${c.host}: workers ${c.from} → ${c.to}`);
  }
  for (const r of d.restart)
    lines.push(`  ~ host ${r.host}: rolling restart of ${r.workers.length} worker(s): ${r.why.join('; ')}`);
  for (const u of d.updated)
    lines.push(`  ~ host ${u.host}: no worker runs there; the next ones start with ${u.why.join('; ')}`);
  for (const m of d.maxWorkers)
    lines.push(`  ~ host ${m.host}: max_workers ${m.from} → ${m.to} (room for scale and adaptive; nothing restarts)`);
  if (d.adaptive)
    lines.push(
      `  ~ adaptive: ${d.adaptive.to ? (d.adaptive.from ? 'new settings from the file' : "on, with the file's settings (it is off now)") : 'the file has none; the settings in force stay'}`,
    );
  for (const why of d.recreate) lines.push(`  ! needs a new cluster: ${why}`);
  const restarts = d.restart.reduce((s, r) => s + r.workers.length, 0);
  const summary = [
    `${d.hostsAdded.length} host(s) to add`,
    `${d.hostsRemoved.length} to drain`,
    `${restarts} worker(s) to restart`,
  ];
  lines.push(`Plan: ${summary.join(', ')}.`);
  if (d.recreate.length)
    lines.push(
      `a running scheduler cannot take this: sshcluster apply --recreate ${file} stops the cluster and starts it anew (tasks and results in memory are lost)`,
    );
  else if (o.recorded) lines.push(gone);
  else lines.push(o.applying ? 'Applying it …' : `sshcluster apply ${file} carries it out`);
  return lines.map(safeLine).join('\n') + '\n';
}
