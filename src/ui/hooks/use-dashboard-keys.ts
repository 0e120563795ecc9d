// Keys → UI commands (store) and cluster actions (the DashboardActions port).
import { useInput } from 'ink';
import type { DashboardActions } from '../actions.js';
import { selectedWorker } from '../state/model.js';
import type { DashboardStore } from '../store.js';

export function useDashboardKeys(store: DashboardStore, actions: DashboardActions, page: number, refresh: () => void): void {
  const say = (text: string, level: 'info' | 'warning' | 'error' = 'info') => store.dispatch({ kind: 'message', text, level });
  const run = (label: string, p: Promise<unknown>) => {
    say(`${label} …`);
    p.then((r) => {
      const msg = (r as { message?: string } | undefined)?.message;
      say(msg ? `${label}: ${msg}` : `${label}: done`, msg ? 'warning' : 'info');
      refresh();
    }).catch((err: unknown) => say(`${label} failed: ${err instanceof Error ? err.message : String(err)}`, 'error'));
  };

  useInput((input, key) => {
    const m = store.model;
    if (key.ctrl && input === 'c') return actions.interrupt();
    if (m.editingFilter) {
      if (key.return) return store.dispatch({ kind: 'filter-done' });
      if (key.escape) return store.dispatch({ kind: 'filter-cancel' });
      if (key.backspace || key.delete) return store.dispatch({ kind: 'filter-backspace' });
      if (input && !key.ctrl && !key.meta) store.dispatch({ kind: 'filter-input', text: input });
      return;
    }
    if (m.overlay === 'quit') {
      if (input === 't') {
        store.dispatch({ kind: 'quit-prompt', open: false });
        run('tear down', actions.teardown());
      } else if (input === 'c' || input === 'q' || key.escape) store.dispatch({ kind: 'quit-prompt', open: false });
      return;
    }
    const live = m.phase === 'up';
    if (input === 'q') {
      if (actions.mode === 'attached') return actions.detach();
      return live ? store.dispatch({ kind: 'quit-prompt', open: true }) : say('the cluster is stopping; Ctrl-C forces');
    }
    if (input === '?') return store.dispatch({ kind: 'help' });
    if (key.escape) return store.dispatch({ kind: 'back' });
    if (key.tab) return store.dispatch({ kind: 'focus-next' });
    if (key.upArrow || key.downArrow) return store.dispatch({ kind: 'move', delta: key.upArrow ? -1 : 1 });
    if (key.pageUp || key.pageDown) return store.dispatch({ kind: 'move', delta: key.pageUp ? -page : page });
    if (key.return) return store.dispatch({ kind: 'enter' });
    if (input === 'l') return store.dispatch({ kind: 'logs-full' });
    if (input === 'f' || (key.end && !m.follow)) return store.dispatch({ kind: 'follow' });
    if (input === '/') return store.dispatch({ kind: 'filter-start' });
    if (input === '+' || input === '-' || input === 'a' || input === 'r') {
      if (!live) return say(m.phase === 'starting' ? 'the cluster is still starting' : 'the cluster is stopping');
      if (input === 'a') return run(`adaptive ${m.adaptive?.enabled ? 'off' : 'on'}`, actions.setAdaptive(!m.adaptive?.enabled));
      if (input === 'r') {
        const w = selectedWorker(m);
        return w ? run(`restart ${w.name}`, actions.restartWorker(w.name)) : say('select a worker first: enter on a host, then ↑ ↓');
      }
      const n = Math.max(0, (m.desiredWorkers ?? 0) + (input === '+' ? 1 : -1));
      run(`scale to ${n}`, actions.scale(n));
    }
  });
}
