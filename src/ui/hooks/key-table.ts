// Every key of the dashboard in one table: what it matches, what it does, and how the
// footer and the help overlay name it (k9s's KeyActions). The key hook runs the first
// entry that matches; nothing else lists keys.
import type { Key } from 'ink';
import type { DashboardActions } from '../actions.js';
import { selectedWorker, type ViewModel } from '../state/model.js';
import type { DashboardStore } from '../store.js';

export interface KeyContext {
  m: ViewModel;
  store: DashboardStore;
  actions: DashboardActions;
  /** Rows a page key moves. */
  page: number;
  input: string;
  key: Key;
  say(text: string, level?: 'info' | 'warning' | 'error'): void;
  /** Runs a cluster action, saying it started and how it ended. */
  run(label: string, p: Promise<unknown>): void;
}

export interface KeyBinding {
  keys: string;
  help: string;
  /** Its word in the footer line, if it has one there. */
  footer?: string;
  match(input: string, key: Key): boolean;
  act(c: KeyContext): void;
}

/** A plain key: Ink gives Ctrl-C as input 'c' with key.ctrl, which must not be the c key's. */
const is =
  (...chars: string[]) =>
  (input: string, key: Key) =>
    !key.ctrl && !key.meta && chars.includes(input);

/** Cluster actions need a running cluster. */
function live(c: KeyContext): boolean {
  if (c.m.phase === 'up') return true;
  c.say(c.m.phase === 'starting' ? 'the cluster is still starting' : 'the cluster is stopping');
  return false;
}

/** The count `+`/`-` start from: the one last asked for, so presses add up before a status poll. */
function scaleBy(c: KeyContext, delta: number): number {
  return Math.max(0, (c.m.desiredWorkers ?? 0) + delta);
}

export const KEY_TABLE: readonly KeyBinding[] = [
  {
    keys: '?',
    footer: 'help',
    help: 'this help (esc closes)',
    match: is('?'),
    act: (c) => c.store.dispatch({ kind: 'help' }),
  },
  {
    keys: 'c',
    footer: 'connect',
    help: 'how to connect a Dask client: the eval line for this cluster',
    match: is('c'),
    act: (c) => c.store.dispatch({ kind: 'connect' }),
  },
  {
    keys: 'q',
    footer: 'quit',
    help: 'quit (attach: detach, the cluster keeps running; up: asks first)',
    match: is('q'),
    act: (c) => {
      if (c.actions.mode === 'attached') return c.actions.detach();
      return c.m.phase === 'up'
        ? c.store.dispatch({ kind: 'quit-prompt', open: true })
        : c.say('the cluster is stopping; Ctrl-C forces');
    },
  },
  {
    keys: '+',
    footer: 'scale',
    help: 'one worker more (presses add up; turns adaptive off)',
    match: is('+'),
    act: (c) => {
      if (!live(c)) return;
      const n = scaleBy(c, 1);
      c.store.dispatch({ kind: 'desired', n });
      c.run(`scale to ${n}`, c.actions.scale(n));
    },
  },
  {
    keys: '-',
    help: 'one worker fewer: asks first (y/n); - again lowers it further',
    match: is('-'),
    act: (c) => live(c) && c.store.dispatch({ kind: 'confirm', ask: { kind: 'scale', n: scaleBy(c, -1) } }),
  },
  {
    keys: 'a',
    footer: 'adaptive',
    help: 'adaptive on / off',
    match: is('a'),
    act: (c) =>
      live(c) &&
      c.run(`adaptive ${c.m.adaptive?.enabled ? 'off' : 'on'}`, c.actions.setAdaptive(!c.m.adaptive?.enabled)),
  },
  {
    keys: 'r',
    footer: 'restart',
    help: "restart the selected worker (in a host's view): asks first (y/n)",
    match: is('r'),
    act: (c) => {
      if (!live(c)) return;
      const w = selectedWorker(c.m);
      return w
        ? c.store.dispatch({ kind: 'confirm', ask: { kind: 'restart', name: w.name } })
        : c.say('select a worker first: enter on a host, then ↑ ↓');
    },
  },
  {
    keys: 'tab',
    footer: 'focus',
    help: 'focus hosts ↔ logs',
    match: (_i, k) => k.tab,
    act: (c) => c.store.dispatch({ kind: 'focus-next' }),
  },
  {
    keys: '↑ ↓',
    help: 'select a host or worker (hosts) or scroll (logs)',
    match: (_i, k) => k.upArrow || k.downArrow,
    act: (c) => c.store.dispatch({ kind: 'move', delta: c.key.upArrow ? -1 : 1 }),
  },
  {
    keys: 'PgUp PgDn',
    help: 'a page at a time',
    match: (_i, k) => k.pageUp || k.pageDown,
    act: (c) => c.store.dispatch({ kind: 'move', delta: c.key.pageUp ? -c.page : c.page }),
  },
  {
    keys: 'enter',
    footer: 'host',
    help: "a host's workers and only its logs; esc goes back",
    match: (_i, k) => k.return,
    act: (c) => c.store.dispatch({ kind: 'enter' }),
  },
  {
    keys: 'esc',
    help: 'back (closes help, full-screen logs, a host view)',
    match: (_i, k) => k.escape,
    act: (c) => c.store.dispatch({ kind: 'back' }),
  },
  {
    keys: 'l',
    footer: 'logs',
    help: 'logs full screen',
    match: is('l'),
    act: (c) => c.store.dispatch({ kind: 'logs-full' }),
  },
  {
    keys: 's',
    help: 'sort: host-file order, then by CPU, memory, tasks, restarts',
    match: is('s'),
    act: (c) => c.store.dispatch({ kind: 'sort' }),
  },
  {
    keys: 'x',
    help: "a selected worker's pid, address, figures and last log lines",
    match: is('x'),
    act: (c) => c.store.dispatch({ kind: 'worker-detail' }),
  },
  {
    keys: 'e',
    footer: 'events',
    help: 'events instead of logs: hosts lost, workers restarted, warnings',
    match: is('e'),
    act: (c) => c.store.dispatch({ kind: 'events' }),
  },
  {
    keys: 'f / End',
    help: 'follow the logs on / off (End: on)',
    match: (i, k) => is('f')(i, k) || k.end,
    act: (c) => (c.key.end && c.m.follow ? undefined : c.store.dispatch({ kind: 'follow' })),
  },
  {
    keys: 'w',
    help: 'log levels shown: all → WARNING and worse → ERROR only → all',
    match: is('w'),
    act: (c) => c.store.dispatch({ kind: 'level' }),
  },
  {
    keys: '/',
    footer: 'filter',
    help: 'filter logs by host, worker or word; enter keeps it, esc clears',
    match: is('/'),
    act: (c) => c.store.dispatch({ kind: 'filter-start' }),
  },
  {
    keys: 'Ctrl-C',
    help: 'like Ctrl-C without the dashboard (in any prompt too)',
    match: (i, k) => k.ctrl && i === 'c',
    act: (c) => c.actions.interrupt(),
  },
];

/** The footer line: the keys the table gives a word, as many as `width` has room for. */
export function footer(width: number): string {
  let out = '';
  for (const k of KEY_TABLE.filter((b) => b.footer)) {
    const item = ` ${k.keys === '+' ? '+ -' : k.keys} ${k.footer} `;
    if (out.length + item.length > width) break;
    out += item;
  }
  return out;
}
