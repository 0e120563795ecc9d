// Where `up` shows what happens: the dashboard on a terminal, else plain lines or
// NDJSON. With the dashboard, the teardown summary and errors are printed again after
// it closes, so the terminal keeps a record of how the cluster ended.
import { ndjsonSink, plainLine, plainSink } from '../../events/plain-sink.js';
import { safeText } from '../../events/terminal-text.js';
import type { ClusterEvent, EventBus } from '../../events/types.js';
import type { DashboardActions } from '../../ui/actions.js';
import { DashboardStore } from '../../ui/store.js';
import type { AppContext } from '../context.js';
import { dashboardWanted, openDashboard, type Dashboard } from '../dashboard/dashboard.js';

export interface UpOutput {
  readonly tui: boolean;
  /** A message for the user (e.g. "press Ctrl-C again to force"). */
  say(text: string): void;
  /** Opens the dashboard (when this output is one) with these actions. */
  open(actions: DashboardActions): void;
  close(): void;
}

const KEEP = 20;

export function upOutput(
  ctx: AppContext,
  bus: EventBus,
  name: string,
  o: { json: boolean; tui?: boolean; detachedChild: boolean },
): UpOutput {
  if (o.detachedChild || !dashboardWanted(ctx, o)) {
    const sink = o.json ? ndjsonSink((t) => ctx.stdout.write(t)) : plainSink((t) => ctx.stdout.write(t));
    // A background controller writes controller.log: process output has its own files.
    bus.on(o.detachedChild ? (e) => void (e.kind !== 'process-line' && sink(e)) : sink);
    return { tui: false, say: (t) => ctx.stderr.write(`\n${t}\n`), open: () => undefined, close: () => undefined };
  }
  const store = new DashboardStore(name);
  const ending: ClusterEvent[] = [];
  bus.on((e) => {
    store.apply(e);
    if (e.kind === 'teardown-started' || e.kind === 'teardown-done' || (e.kind === 'notice' && e.level === 'error')) {
      ending.push(e);
      if (ending.length > KEEP) ending.shift();
    }
  });
  let dash: Dashboard | undefined;
  return {
    tui: true,
    say: (text) => store.dispatch({ kind: 'message', text, level: 'warning' }),
    open: (actions) => void (dash ??= openDashboard(ctx, store, actions)),
    close() {
      dash?.close();
      dash = undefined;
      for (const e of ending) ctx.stdout.write(safeText(plainLine(e) ?? '') + '\n');
      ending.length = 0;
    },
  };
}
