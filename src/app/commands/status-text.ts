// `sshcluster status` without --json: the status document as text for a terminal.
import {
  allRestarts,
  shownHostState,
  type AdaptiveStatus,
  type CertificatesStatus,
  type StatusJson,
  type TaskFigures,
  type WorkerStatus,
} from '../../control/status-document.js';
import { safeDeep } from '../../events/terminal-text.js';
import { adaptiveStateText, lastChangeText } from '../../control/adaptive-text.js';
import { bytes, duration } from '../../events/units.js';
import {
  clientsAndScheduler,
  prefixLines,
  progressText,
  taskStates,
  workerTasks,
} from '../../control/task-figures-text.js';

/** For a terminal: names, errors and addresses can hold what a host said, so escaped. */
export function statusText(raw: StatusJson): string {
  const st = safeDeep(raw);
  // Held workers run, though no longer desired (results with nowhere to go): counted apart.
  const held = st.workers.filter((w) => w.state === 'held').length;
  const lines = [
    `cluster ${st.name}  up ${duration(st.uptimeS * 1000)}  workers ${st.workers.filter((w) => w.state === 'running').length}/${st.desiredWorkers}${held ? ` (+${held} held)` : ''}`,
    `  scheduler: ${st.schedulerAddress}`,
    `  dashboard: ${st.dashboardUrl}`,
    ...(st.certificates ? certificateLines(st.certificates) : []),
    ...(st.adaptive ? [adaptiveLine(st.adaptive)] : []),
    ...(st.tasks ? tasksLines(st.tasks) : []),
    '',
    'HOST'.padEnd(24) + 'STATE'.padEnd(13) + 'WORKERS  LAST ERROR',
    ...st.hosts.map(
      (h) =>
        h.name.padEnd(24) +
        shownHostState(h.state, h.lastError).padEnd(13) +
        String(h.workers).padEnd(9) +
        (h.lastError ?? ''),
    ),
    '',
    'WORKER'.padEnd(24) + 'STATE'.padEnd(12) + 'PID'.padEnd(9) + 'RESTARTS  CPU    MEMORY      TASKS  IDLE   ADDRESS',
    ...st.workers.map(
      (w) =>
        w.name.padEnd(24) +
        w.state.padEnd(12) +
        String(w.pid ?? '-').padEnd(9) +
        String(allRestarts(w)).padEnd(10) +
        figures(w) +
        (w.address ?? '-'),
    ),
    ...(st.events?.length
      ? ['', 'RECENT EVENTS', ...st.events.slice(-10).map((e) => `${e.time.slice(11, 19)}  ${e.subject}: ${e.text}`)]
      : []),
  ];
  return lines.join('\n') + '\n';
}

/** The scheduler's figures for a worker (status --json's optional fields), '-' where absent. */
function figures(w: WorkerStatus): string {
  const cpu = w.cpu === undefined ? '-' : `${Math.round(w.cpu)}%`;
  const mem =
    w.memoryBytes === undefined
      ? '-'
      : bytes(w.memoryBytes) + (w.memoryLimitBytes ? `/${bytes(w.memoryLimitBytes)}` : '');
  const idle = w.idleS === undefined ? '-' : `${Math.floor(w.idleS)}s`;
  return cpu.padEnd(7) + mem.padEnd(12) + String(workerTasks(w) ?? '-').padEnd(7) + idle.padEnd(7);
}

function tasksLines(t: TaskFigures): string[] {
  const progress = progressText(t);
  return [
    `  tasks: ${taskStates(t)}${progress ? `; newest computation ${progress}` : ''}`,
    ...prefixLines(t).map((l) => `    ${l}`),
    `  ${clientsAndScheduler(t, bytes)}`,
  ];
}

function adaptiveLine(a: AdaptiveStatus): string {
  const more = [
    a.minimumCores !== undefined || a.maximumCores !== undefined
      ? `, cores ${a.minimumCores ?? 0}..${a.maximumCores ?? '∞'}`
      : '',
    a.minimumMemory !== undefined || a.maximumMemory !== undefined
      ? `, memory ${bytes(a.minimumMemory ?? 0)}..${a.maximumMemory === undefined ? '∞' : bytes(a.maximumMemory)}`
      : '',
  ].join('');
  const unmet = a.unmet.map((u) => `\n  unmet: ${u}`).join('');
  return `  adaptive: ${adaptiveStateText(a, more)}${lastChangeText(a)}${unmet}`;
}

function certificateLines(c: CertificatesStatus): string[] {
  const when = c.notAfter.slice(0, 16).replace('T', ' ') + ' UTC';
  const line = `  certificates: valid until ${when} (${c.expiresInDays < 0 ? 'expired' : `${c.expiresInDays} day(s) left`})`;
  return c.warning ? [line, `  warning: ${c.warning}`] : [line];
}
