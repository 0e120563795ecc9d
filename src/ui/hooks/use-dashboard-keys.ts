// Keys → the key table (key-table.ts), except while a prompt is open: the filter being
// typed, the quit prompt, or a y/n confirmation, which take every key but Ctrl-C.
import { useInput } from 'ink';
import type { DashboardActions } from '../actions.js';
import type { DashboardStore } from '../store.js';
import { KEY_TABLE, type KeyContext } from './key-table.js';

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
    const binding = KEY_TABLE.find((b) => b.match(input, key));
    const c: KeyContext = { m, store, actions, page, input, key, say, run };
    if (binding?.keys === 'Ctrl-C') return binding.act(c);
    if (m.editingFilter) {
      if (key.return) return store.dispatch({ kind: 'filter-done' });
      if (key.escape) return store.dispatch({ kind: 'filter-cancel' });
      if (key.backspace || key.delete) return store.dispatch({ kind: 'filter-backspace' });
      if (input && !key.ctrl && !key.meta) typed(store, input);
      return;
    }
    if (m.overlay === 'quit') {
      if (input === 't') {
        store.dispatch({ kind: 'quit-prompt', open: false });
        run('tear down', actions.teardown());
      } else if (input === 'c' || input === 'q' || key.escape) store.dispatch({ kind: 'quit-prompt', open: false });
      return;
    }
    if (m.overlay === 'confirm' && m.confirm) {
      const ask = m.confirm;
      if (input === '-' && ask.kind === 'scale') return store.dispatch({ kind: 'confirm', ask: { kind: 'scale', n: Math.max(0, ask.n - 1) } });
      if (input === 'y') {
        store.dispatch({ kind: 'confirm', ask: null });
        if (ask.kind === 'restart') return run(`restart ${ask.name}`, actions.restartWorker(ask.name));
        store.dispatch({ kind: 'desired', n: ask.n });
        return run(`scale to ${ask.n}`, actions.scale(ask.n));
      }
      if (input === 'n' || key.escape || input === 'q') store.dispatch({ kind: 'confirm', ask: null });
      return;
    }
    binding?.act(c);
  });
}

/**
 * Typed (or pasted) filter text: a chunk may hold several keys, an Enter among them
 * (tmux send-keys, a paste). Control characters never reach the filter or the screen.
 */
function typed(store: DashboardStore, input: string): void {
  const [text = '', ...rest] = input.split(/[\r\n]/);
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '');
  if (clean) store.dispatch({ kind: 'filter-input', text: clean });
  if (rest.length) store.dispatch({ kind: 'filter-done' });
}
