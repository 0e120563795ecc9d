// `attach` on a terminal: the dashboard over the control socket. q or Ctrl-C detaches;
// the cluster keeps running. When the controller goes away, the dashboard closes.
import type { ControlApiClient } from '../controller/control-api.js';
import type { ClusterEvent } from '../../events/types.js';
import { safeLine } from '../../events/terminal-text.js';
import { DashboardStore } from '../../ui/store.js';
import type { AppContext } from '../context.js';
import { openDashboard } from './dashboard.js';
import { controlActions } from '../controller/dashboard-actions.js';

export async function attachDashboard(ctx: AppContext, client: ControlApiClient, name: string): Promise<number> {
  const store = new DashboardStore(name, Date.now, undefined, 'up');
  let detached = false;
  const detach = () => {
    detached = true;
    client.close();
  };
  const dash = openDashboard(ctx, store, controlActions(client, detach));
  const off = ctx.onSignal(detach);
  let ended: string | undefined;
  try {
    await client.subscribe((e) => store.apply(e), {
      onSubscribed: (r) => {
        store.setStatus(r.status);
        for (const e of r.recentLines) store.apply(e);
      },
    });
  } catch (err) {
    ended = err instanceof Error ? err.message : String(err);
  } finally {
    off();
    dash.close();
  }
  if (detached)
    ctx.stdout.write(
      `Detached from ${name}; it keeps running (sshcluster attach to come back, sshcluster down to stop it).\n`,
    );
  else
    ctx.stdout.write(
      `The controller of ${safeLine(name)} closed the connection${ended ? `: ${safeLine(ended)}` : ''}.\n`,
    );
  return 0;
}
