// Keys → view-model changes that need no cluster action (focus, selection, scrolling,
// filter, overlays). Pure.
import {
  logMatcher,
  NEXT_LEVEL,
  selectedHost,
  selectedWorker,
  SORT_KEYS,
  sortedHosts,
  workersOf,
  type Confirm,
  type ViewModel,
} from './model.js';

export type UiCommand =
  | { kind: 'move'; delta: number }
  | { kind: 'enter' }
  | { kind: 'back' }
  | { kind: 'focus-next' }
  | { kind: 'follow' }
  | { kind: 'logs-full' }
  | { kind: 'events' }
  | { kind: 'sort' }
  | { kind: 'worker-detail' }
  | { kind: 'help' }
  | { kind: 'connect' }
  | { kind: 'filter-start' }
  | { kind: 'filter-input'; text: string }
  | { kind: 'filter-backspace' }
  | { kind: 'filter-done' }
  | { kind: 'filter-cancel' }
  | { kind: 'level' }
  | { kind: 'quit-prompt'; open: boolean }
  | { kind: 'confirm'; ask: Confirm | null }
  /** The size just asked for (+, or a confirmed -): the next press counts from it. */
  | { kind: 'desired'; n: number }
  | { kind: 'message'; text: string; level: 'info' | 'warning' | 'error' };

export function reduceUi(m: ViewModel, c: UiCommand): ViewModel {
  switch (c.kind) {
    case 'move':
      return m.focus === 'logs' || m.logsFull ? scroll(m, c.delta) : select(m, c.delta);
    case 'enter':
      if (m.focus !== 'hosts' || !m.hosts.length) return m;
      return { ...m, detail: !m.detail, selectedWorker: 0, follow: true, anchor: null };
    case 'back':
      if (m.overlay !== 'none') return { ...m, overlay: 'none', confirm: null };
      if (m.logsFull) return { ...m, logsFull: false };
      return m.detail ? { ...m, detail: false, follow: true, anchor: null } : m;
    case 'focus-next':
      return { ...m, focus: m.focus === 'hosts' ? 'logs' : 'hosts' };
    case 'follow':
      return m.follow ? { ...m, follow: false, anchor: m.logs.newest } : { ...m, follow: true, anchor: null };
    case 'logs-full':
      return { ...m, logsFull: !m.logsFull };
    case 'events':
      return { ...m, showEvents: !m.showEvents };
    case 'sort': {
      // The selection stays on the same host.
      const keep = selectedHost(m)?.name;
      const next = { ...m, sortBy: SORT_KEYS[(SORT_KEYS.indexOf(m.sortBy) + 1) % SORT_KEYS.length]! };
      const i =
        keep === undefined
          ? 0
          : Math.max(
              0,
              sortedHosts(next).findIndex((h) => h.name === keep),
            );
      return {
        ...next,
        selectedHost: i,
        selectedWorker: 0,
        message: {
          text: `sorted by ${next.sortBy}${next.sortBy === 'host file' ? ' order' : ', largest first'}`,
          level: 'info',
        },
      };
    }
    case 'worker-detail':
      if (m.overlay === 'worker') return { ...m, overlay: 'none' };
      return selectedWorker(m)
        ? { ...m, overlay: 'worker' }
        : { ...m, message: { text: 'select a worker first: enter on a host, then ↑ ↓', level: 'info' } };
    case 'help':
      return { ...m, overlay: m.overlay === 'help' ? 'none' : 'help' };
    case 'connect':
      return { ...m, overlay: m.overlay === 'connect' ? 'none' : 'connect' };
    case 'filter-start':
      return { ...m, editingFilter: true };
    case 'filter-input':
      return { ...m, filter: m.filter + c.text, follow: true, anchor: null };
    case 'filter-backspace':
      return { ...m, filter: m.filter.slice(0, -1) };
    case 'filter-done':
      return { ...m, editingFilter: false };
    case 'filter-cancel':
      return { ...m, editingFilter: false, filter: '' };
    case 'level':
      return { ...m, minLevel: NEXT_LEVEL[m.minLevel], follow: true, anchor: null };
    case 'quit-prompt':
      return { ...m, overlay: c.open ? 'quit' : 'none' };
    case 'confirm':
      return { ...m, overlay: c.ask ? 'confirm' : 'none', confirm: c.ask };
    case 'desired':
      return { ...m, desiredWorkers: c.n };
    case 'message':
      return { ...m, message: { text: c.text, level: c.level } };
  }
}

function select(m: ViewModel, delta: number): ViewModel {
  if (m.detail) {
    const h = selectedHost(m);
    const n = h ? workersOf(m, h.name).length : 0;
    return { ...m, selectedWorker: clamp(m.selectedWorker + delta, n) };
  }
  return { ...m, selectedHost: clamp(m.selectedHost + delta, m.hosts.length) };
}

/** Up stops following and pins the view; scrolling back to the newest line follows again. */
function scroll(m: ViewModel, delta: number): ViewModel {
  const match = logMatcher(m);
  const from = m.follow || m.anchor === null ? (m.logs.window(1, match, null)[0]?.seq ?? m.logs.newest) : m.anchor;
  const to = m.logs.step(from, delta, match);
  const newest = m.logs.window(1, match, null)[0]?.seq ?? m.logs.newest;
  if (delta > 0 && to >= newest) return { ...m, follow: true, anchor: null };
  return { ...m, follow: false, anchor: to };
}

function clamp(i: number, n: number): number {
  return Math.max(0, Math.min(i, n - 1));
}
