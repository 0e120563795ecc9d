// Composition root of `sshcluster up`: the plan (spec and what a dead controller left),
// the real adapters, then the cluster's life (cluster/life.ts) until Ctrl-C, SIGTERM,
// `sshcluster down`, a client's shutdown or a fatal failure.
import { runLife } from '../../cluster/life.js';
import type { TeardownResult } from '../../cluster/start-stop/teardown.js';
import type { AppContext } from '../context.js';
import { sessionActions } from '../controller/dashboard-actions.js';
import { statusOf, type StatusJson } from '../controller/status.js';
import { controlEndpoint, stopHandling, upOutputs, upServers, upSession } from './up-adapters.js';
import { lifePorts, withPortHolder } from './up-life.js';
import { adoptionNotices, localNotice } from './up-notices.js';
import type { UpOptions } from './up-options.js';
import { prepareUp } from './up-prepare.js';

export type { UpOptions } from './up-options.js';

/**
 * How long (s) the processes of a detached controller outlive it, waiting for an `up`
 * of the same cluster to adopt them; a foreground `up` uses 0 (they stop with it).
 */
export const DETACHED_ORPHAN_GRACE_S = 300;

export async function runUp(ctx: AppContext, opts: UpOptions): Promise<number> {
  // `up | head -1` must not orphan the cluster's processes: it runs on, unseen, until
  // Ctrl-C or `down`.
  ctx.onReaderGone();
  const plan = await prepareUp(ctx, opts);
  const outputs = upOutputs(ctx, opts, plan);
  const { bus, out } = outputs;
  localNotice(bus, plan);
  let statusNow: (() => StatusJson) | undefined;
  const { metrics, tls } = await upServers(ctx, opts, plan, bus, () => statusNow?.());
  const stop = new AbortController();
  const session = upSession(ctx, opts, plan, { bus, tls, signal: stop.signal });
  statusNow = () => statusOf(session, plan.clusterId, ctx.pid);
  const { requestStop, onSignal } = stopHandling(out, session, stop);
  const controller = controlEndpoint(ctx, opts, plan, session, requestStop);
  adoptionNotices(bus, plan, opts.file);
  // The state file exists before any process does, so `down` can always find them: the
  // hosts connect while it is written, and start() launches nothing until it is (nor
  // before the log store that records the processes' lines is open). A dead
  // controller's file stays as it is until its processes are adopted.
  const written = (plan.previous ? Promise.resolve() : controller.save()).then(() => controller.recordLogs());
  const off = ctx.onSignal(onSignal);
  const teardown = () => requestStop('q in the dashboard');
  out.open(
    sessionActions(session, { clusterId: plan.clusterId, pid: ctx.pid, teardown, interrupt: () => onSignal('SIGINT') }),
  );
  let result: TeardownResult | undefined;
  try {
    const { readyTimeoutMs, report } = opts;
    const end = await runLife(
      lifePorts(plan, { session, controller, outputs, signal: stop.signal, written, readyTimeoutMs, report }),
    );
    result = end.result;
    if (end.kind === 'error') throw await withPortHolder(ctx, plan.spec, end.error);
    return end.code;
  } finally {
    await metrics?.close();
    off();
    out.close();
    await written; // never rejects: a failed write is a warning
    await controller.close(result !== undefined && result.leftover.length === 0);
  }
}
