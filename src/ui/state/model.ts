// The dashboard's view model: everything a frame shows, derived from ClusterEvents and
// status snapshots (reduce-event.ts) and from keys (reduce-ui.ts).
import { LogRing, type LogLevel } from './log-ring.js';
import type {
  AdaptiveStatus,
  CertificatesStatus,
  ClusterStatusEvent,
  TaskFigures,
  WorkerStatus,
} from '../../control/status-document.js';
import { workerTasks } from '../../control/task-figures-text.js';

export type Phase = 'starting' | 'up' | 'stopping' | 'stopped';
export type StepState = 'connecting' | 'starting' | 'registered' | 'failed';
export type Focus = 'hosts' | 'logs';
export type Overlay = 'none' | 'help' | 'quit' | 'confirm' | 'worker' | 'connect';

/** `s` cycles through these: host-file order, then the busiest first by each figure. */
export const SORT_KEYS = ['host file', 'cpu', 'memory', 'tasks', 'restarts'] as const;
export type SortKey = (typeof SORT_KEYS)[number];

/** What `r` and `-` ask before they act. */
export type Confirm = { kind: 'restart'; name: string } | { kind: 'scale'; n: number };

export interface HostView {
  name: string;
  roles: string[];
  /** The status document's host state, or the last host-state event's. */
  state: string;
  reason: string | null;
  /** Start-up progress, with the time this step began (ms). */
  step: StepState;
  stepSince: number;
}

export interface ViewModel {
  name: string;
  schedulerAddress: string;
  dashboardUrl: string;
  /** ms since the epoch; null until the first status snapshot. */
  startedAt: number | null;
  desiredWorkers: number | null;
  phase: Phase;
  phaseReason: string | null;
  hosts: HostView[];
  workers: WorkerStatus[];
  adaptive: AdaptiveStatus | null;
  /** The scheduler's work (status's optional figures); null while unknown. */
  tasks: TaskFigures | null;
  /** When the TLS certificates end (status); null without TLS or while unknown. */
  certificates: CertificatesStatus | null;
  /** The controller's recent events (status), shown instead of the logs with `e`. */
  events: ClusterStatusEvent[];
  showEvents: boolean;
  sortBy: SortKey;
  /** Mutable and bounded; logVersion changes whenever it does. */
  logs: LogRing;
  logVersion: number;
  filter: string;
  editingFilter: boolean;
  /** The least level a log line needs to be shown (`w` cycles info → warning → error). */
  minLevel: LogLevel;
  follow: boolean;
  /** seq of the bottom line while not following. */
  anchor: number | null;
  focus: Focus;
  selectedHost: number;
  /** enter on a host: its workers and only its logs. */
  detail: boolean;
  selectedWorker: number;
  logsFull: boolean;
  overlay: Overlay;
  confirm: Confirm | null;
  message: { text: string; level: 'info' | 'warning' | 'error' } | null;
}

export function initialModel(name = '', logs = new LogRing()): ViewModel {
  return {
    name,
    schedulerAddress: '',
    dashboardUrl: '',
    startedAt: null,
    desiredWorkers: null,
    phase: 'starting',
    phaseReason: null,
    hosts: [],
    workers: [],
    adaptive: null,
    tasks: null,
    certificates: null,
    events: [],
    showEvents: false,
    sortBy: 'host file',
    logs,
    logVersion: 0,
    filter: '',
    editingFilter: false,
    minLevel: 'info',
    follow: true,
    anchor: null,
    focus: 'hosts',
    selectedHost: 0,
    detail: false,
    selectedWorker: 0,
    logsFull: false,
    overlay: 'none',
    confirm: null,
    message: null,
  };
}

/** The hosts in the order shown (and selected in): `sortBy`'s figure, largest first; ties keep host-file order. */
export function sortedHosts(m: ViewModel): HostView[] {
  if (m.sortBy === 'host file') return m.hosts;
  // Each host's total in one pass over the workers: summed inside the comparator it was
  // a pass per comparison, seconds a frame at 1,000 hosts.
  const totals = new Map<string, number>();
  for (const w of m.workers)
    if (w.state !== 'stopped') totals.set(w.host, (totals.get(w.host) ?? 0) + figure(w, m.sortBy));
  const total = (h: HostView) => totals.get(h.name) ?? 0;
  return [...m.hosts].sort((a, b) => total(b) - total(a));
}

export function selectedHost(m: ViewModel): HostView | undefined {
  return sortedHosts(m)[m.selectedHost];
}

/** A host's live workers, in the order shown (and selected in). */
export function workersOf(m: ViewModel, host: string): WorkerStatus[] {
  const ws = m.workers.filter((w) => w.host === host && w.state !== 'stopped');
  return m.sortBy === 'host file' ? ws : [...ws].sort((a, b) => figure(b, m.sortBy) - figure(a, m.sortBy));
}

function figure(w: WorkerStatus, key: SortKey): number {
  switch (key) {
    case 'cpu':
      return w.cpu ?? 0;
    case 'memory':
      return w.memoryBytes ?? 0;
    case 'tasks':
      return workerTasks(w) ?? 0;
    case 'restarts':
      return w.restarts + (w.nannyRestarts ?? 0);
    case 'host file':
      return 0;
  }
}

export function selectedWorker(m: ViewModel): WorkerStatus | undefined {
  const h = selectedHost(m);
  return h && m.detail ? workersOf(m, h.name)[m.selectedWorker] : undefined;
}

/** The log lines shown: the filter (host, process or message text), and in a host's detail view only that host's. */
export function logMatcher(
  m: ViewModel,
): (l: { host: string; source: string; text: string; level: LogLevel }) => boolean {
  const host = m.detail ? selectedHost(m)?.name : undefined;
  const f = m.filter.toLowerCase();
  const least = LEVEL_RANK[m.minLevel];
  return (l) =>
    LEVEL_RANK[l.level] >= least &&
    (host === undefined || l.host === host) &&
    (!f || l.host.toLowerCase().includes(f) || l.source.toLowerCase().includes(f) || l.text.toLowerCase().includes(f));
}

const LEVEL_RANK: Record<LogLevel, number> = { info: 0, warning: 1, error: 2 };
/** What `w` moves the least level to. */
export const NEXT_LEVEL: Record<LogLevel, LogLevel> = { info: 'warning', warning: 'error', error: 'info' };
