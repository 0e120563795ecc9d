// Opens the Ink dashboard on the terminal (alternate screen, raw keys) and closes it
// again, leaving the screen as it was. The caller decides when (dashboardWanted).
// Ink, React and the components are loaded only here: a process without a dashboard
// (the background controller above all) does not carry their ~45 MB.
import type { Instance } from 'ink';
import type { DashboardActions } from '../../ui/actions.js';
import type { DashboardStore } from '../../ui/store.js';
import type { AppContext } from '../context.js';
import { loadUi } from './load-ui.js';

const ALT_SCREEN_ON = '\x1b[?1049h';
const ALT_SCREEN_OFF = '\x1b[?1049l';

export interface Dashboard {
  close(): void;
}

/** On a terminal, unless --no-tui or --json: the same rule for `up` and `attach`. */
export function dashboardWanted(ctx: AppContext, o: { tui?: boolean; json?: boolean }): boolean {
  return o.tui !== false && !o.json && ctx.tty !== undefined && ctx.stdout.isTTY === true && ctx.env.TERM !== 'dumb';
}

export function openDashboard(ctx: AppContext, store: DashboardStore, actions: DashboardActions): Dashboard {
  const tty = ctx.tty!;
  let ink: Instance | undefined;
  let closed = false;
  void loadUi().then(({ renderDashboard }) => {
    if (closed) return;
    tty.stdout.write(ALT_SCREEN_ON);
    ink = renderDashboard(
      { store, actions, color: !('NO_COLOR' in ctx.env) || ctx.env.NO_COLOR === '' },
      {
        stdout: tty.stdout,
        stdin: tty.stdin,
        exitOnCtrlC: false,
        patchConsole: false,
        maxFps: 20,
      },
    );
  });
  return {
    close() {
      closed = true;
      if (!ink) return;
      ink.unmount();
      ink = undefined;
      tty.stdout.write(ALT_SCREEN_OFF);
    },
  };
}
