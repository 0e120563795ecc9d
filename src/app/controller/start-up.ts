// Start-up's last step: the scheduler itself confirms readiness, then each worker host
// is reported running or failed with the reason its workers did not register.
import { SCHEDULER_NAME } from '../../cluster/plan.js';
import { describeExit } from '../../dask/diagnose.js';
import { SchedulerClient } from '../../dask/scheduler-client.js';
import { parseSchedulerLine } from '../../dask/log-lines.js';
import { dashboardForward, dashboardUrl } from './addresses.js';
import type { ClusterSession } from './cluster-session.js';
import { waitForScheduler } from './readiness.js';

export async function confirmReady(s: ClusterSession): Promise<void> {
  const { spec } = s;
  const sched = s.table.get(SCHEDULER_NAME);
  const runner = s.links.runners.get(spec.schedulerHost.name);
  if (!sched || !runner) throw await s.fatal('scheduler did not start');
  const fwd = dashboardForward(spec);
  // Dask moves the dashboard to another port when the configured one is taken (with a
  // warning only); its "dashboard at:" line says where it really is.
  const dashboardSeen = (line: string) => {
    const p = parseSchedulerLine(line);
    if (p?.kind === 'dashboard' && p.port !== fwd.port) {
      fwd.port = p.port;
      s.dashboard = dashboardUrl({ ...spec, schedulerOptions: { ...spec.schedulerOptions, dashboardAddress: `${p.host ?? ''}:${p.port}` } });
      s.bus.emit({ kind: 'notice', level: 'warning', message: `the dashboard port was taken; the scheduler serves it on ${p.port}` });
    }
  };
  sched.tail.toArray().forEach(dashboardSeen);
  sched.proc.onLine((_stream, line) => dashboardSeen(line));
  s.client = new SchedulerClient(() => runner.forwardOut(fwd.host, fwd.port), { timeoutMs: 5_000 });
  const expected = () =>
    new Set(s.table.all().filter((t) => t.desired.role === 'worker' && !t.exit).map((t) => t.desired.name));
  const schedulerGone = sched.proc.exited.then((e) => describeExit(e, sched.tail.toArray(), spec.schedulerHost.remotePython));
  const r = await waitForScheduler({ client: s.client, expected, schedulerGone, timeoutMs: s.o.readyTimeoutMs });
  if (r.kind === 'scheduler-failed') throw await s.fatal(`scheduler on ${spec.schedulerHost.name} failed: ${r.reason}`, sched.tail.toArray());
  s.registered = new Map(r.workers.map((w) => [w.name, w.address]));
  s.bus.emit({ kind: 'host-state', host: spec.schedulerHost.name, state: 'running' });
  reportWorkerHosts(s, r.kind === 'partial' ? new Set(r.missing) : new Set());
}

function reportWorkerHosts(s: ClusterSession, missing: Set<string>): void {
  for (const h of s.spec.workerHosts) {
    if (s.failedHosts.has(h.name)) continue;
    const mine = s.table.all().filter((t) => t.desired.host === h.name && t.desired.role === 'worker');
    const bad = mine.find((t) => !s.registered.has(t.desired.name));
    if (mine.length > 0 && !bad) {
      s.bus.emit({ kind: 'host-state', host: h.name, state: 'running' });
      continue;
    }
    const reason = !bad
      ? 'no worker started'
      : bad.exit
        ? `${bad.desired.name}: ${describeExit(bad.exit, bad.tail.toArray(), h.remotePython)}`
        : `${bad.desired.name}: ${missing.has(bad.desired.name) ? 'did not register with the scheduler in time' : 'not registered'}`;
    s.failHost(h.name, reason, bad?.tail.toArray().slice(-8));
  }
}
