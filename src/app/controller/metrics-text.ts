// `up --metrics [HOST]:PORT`: the controller's own figures in Prometheus's text format
// (version 0.0.4), from the status document it already keeps: no scheduler call, so a
// scrape costs nothing and answers even while the scheduler is busy or gone.
import type { StatusJson } from '../../control/status-document.js';
import { allRestarts } from '../../control/status-document.js';

type Labels = Record<string, string>;

/** A label value as the format wants it: backslash, quote and newline escaped. */
function value(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function sample(name: string, labels: Labels, v: number): string {
  const l = Object.entries(labels)
    .map(([k, x]) => `${k}="${value(x)}"`)
    .join(',');
  return `${name}{${l}} ${Number.isFinite(v) ? v : 0}`;
}

export function metricsText(st: StatusJson): string {
  const c = { cluster: st.name };
  const out: string[] = [];
  const metric = (name: string, type: 'gauge' | 'counter', help: string, samples: string[]) => {
    out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, ...samples);
  };
  metric('sshcluster_workers_desired', 'gauge', 'Workers the controller is keeping.', [
    sample('sshcluster_workers_desired', c, st.desiredWorkers),
  ]);
  const states = ['starting', 'running', 'retiring', 'held', 'stopped', 'crashed', 'restarting'] as const;
  metric(
    'sshcluster_workers',
    'gauge',
    'Workers by state.',
    states.map((s) => sample('sshcluster_workers', { ...c, state: s }, st.workers.filter((w) => w.state === s).length)),
  );
  metric(
    'sshcluster_worker_restarts_total',
    'counter',
    "Restarts of each worker, ours and its nanny's.",
    st.workers.map((w) =>
      sample('sshcluster_worker_restarts_total', { ...c, worker: w.name, host: w.host }, allRestarts(w)),
    ),
  );
  metric(
    'sshcluster_host_up',
    'gauge',
    'Whether processes can be started on the host (1: up or degraded).',
    st.hosts.map((h) =>
      sample(
        'sshcluster_host_up',
        { ...c, host: h.name, state: h.state },
        h.state === 'up' || h.state === 'degraded' ? 1 : 0,
      ),
    ),
  );
  metric(
    'sshcluster_host_errors',
    'gauge',
    'Whether the host has an error to report (its lastError in status).',
    st.hosts.map((h) => sample('sshcluster_host_errors', { ...c, host: h.name }, h.lastError === null ? 0 : 1)),
  );
  const a = st.adaptive;
  metric('sshcluster_adaptive_enabled', 'gauge', 'Adaptive scaling on (1) or off (0).', [
    sample('sshcluster_adaptive_enabled', c, a?.enabled ? 1 : 0),
  ]);
  if (a?.target !== null && a?.target !== undefined)
    metric('sshcluster_adaptive_target', 'gauge', 'The last adaptive target, clipped to the bounds.', [
      sample('sshcluster_adaptive_target', c, a.target),
    ]);
  metric('sshcluster_unmet_demand_kinds', 'gauge', 'Kinds of resource demand the hosts cannot meet now.', [
    sample('sshcluster_unmet_demand_kinds', c, a?.unmet.length ?? 0),
  ]);
  metric('sshcluster_uptime_seconds', 'gauge', 'Seconds since the cluster started.', [
    sample('sshcluster_uptime_seconds', c, st.uptimeS),
  ]);
  return out.join('\n') + '\n';
}
