// Keys → the key table (key-table.ts), except while a prompt is open: the filter being
// typed, the quit prompt, or a y/n confirmation, which take every key but Ctrl-C.
import { useInput, type Key } from 'ink';
import type { DashboardActions } from '../actions.js';
import type { DashboardStore } from '../store.js';
import { KEY_TABLE, type KeyContext } from './key-table.js';

export function useDashboardKeys(
  store: DashboardStore,
  actions: DashboardActions,
  page: number,
  refresh: () => void,
): void {
  const say = (text: string, level: 'info' | 'warning' | 'error' = 'info') =>
    store.dispatch({ kind: 'message', text, level });
  const run = (label: string, p: Promise<unknown>) => {
    say(`${label} …`);
    p.then((r) => {
      const msg = (r as { message?: string } | undefined)?.message;
      say(msg ? `${label}: ${msg}` : `${label}: done`, msg ? 'warning' : 'info');
      refresh();
    }).catch((err: unknown) => say(`${label} failed: ${err instanceof Error ? err.message : String(err)}`, 'error'));
  };

  useInput((input, key) => {
    // Keys that arrive together (typed while the dashboard was busy, a paste, tmux
    // send-keys) come as one chunk: taken one by one, or `/abc⏎` would be no key at all.
    if (input.length > 1 && !key.ctrl && !key.meta && !key.escape) {
      const plain = Object.fromEntries(Object.keys(key).map((k) => [k, false])) as unknown as Key;
      for (const ch of input)
        handle(ch === '\r' || ch === '\n' ? '' : ch, ch === '\r' || ch === '\n' ? { ...plain, return: true } : plain);
      return;
    }
    handle(input, key);
  });

  function handle(input: string, key: Key): void {
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
      if (input === '-' && ask.kind === 'scale')
        return store.dispatch({ kind: 'confirm', ask: { kind: 'scale', n: Math.max(0, ask.n - 1) } });
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
  }
}

/** A typed filter key; control characters never reach the filter or the screen. */
function typed(store: DashboardStore, input: string): void {
  const clean = input.replace(/[\u0000-\u001f\u007f-\u009f]/g, '');
  if (clean) store.dispatch({ kind: 'filter-input', text: clean });
}
