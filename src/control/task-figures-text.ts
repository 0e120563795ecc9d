// The scheduler's figures as text, one way for `status` and the dashboard: a worker's
// tasks, and the cluster's work as "108/160 done (67%) · 40 queued, 12 processing,
// 108 in memory · 1 client · scheduler 3% 120M" (the dashboard adds a bar).
import type { TaskFigures, WorkerStatus } from './status-document.js';

/** Tasks at a worker: processing (sshcluster's preload), else executing (identity.json). */
export function workerTasks(w: Pick<WorkerStatus, 'processing' | 'executing'>): number | undefined {
  return w.processing ?? w.executing;
}

/** Dask's states in the order work moves through them; "memory" reads "in memory". */
const SHOWN: [state: string, label: string][] = [
  ['no-worker', 'no worker'],
  ['waiting', 'waiting'],
  ['queued', 'queued'],
  ['processing', 'processing'],
  ['memory', 'in memory'],
  ['erred', 'erred'],
];

/** "40 queued, 12 processing, 108 in memory", or "none". */
export function taskStates(t: TaskFigures): string {
  const parts = SHOWN.filter(([s]) => (t.byState[s] ?? 0) > 0).map(([s, label]) => `${t.byState[s]} ${label}`);
  return parts.length ? parts.join(', ') : 'none';
}

/** "108/160 done (67%)" with erred ones said, or undefined before any computation. */
export function progressText(t: TaskFigures): string | undefined {
  const p = t.progress;
  if (!p || p.total === 0) return undefined;
  const pct = Math.floor((100 * p.done) / p.total);
  return `${p.done}/${p.total} done (${pct}%)${p.erred ? `, ${p.erred} erred` : ''}`;
}

/**
 * One line per task prefix of the newest computation, most erred first: "inc: 3/4 done,
 * 1 erred, killed 4 workers". Only when there is more than one prefix or any erred.
 */
export function prefixLines(t: TaskFigures, max = 8): string[] {
  const ps = t.progress?.prefixes ?? [];
  if (ps.length === 0 || (ps.length === 1 && !ps[0]!.erred && !ps[0]!.killedWorkers)) return [];
  const lines = ps.slice(0, max).map((p) => {
    const killed = p.killedWorkers ? `, killed ${p.killedWorkers} worker${p.killedWorkers === 1 ? '' : 's'}` : '';
    return `${p.prefix}: ${p.done}/${p.total} done${p.erred ? `, ${p.erred} erred` : ''}${killed}`;
  });
  return ps.length > max ? [...lines, `+${ps.length - max} more prefixes`] : lines;
}

/** A bar of `width` cells for the newest computation's progress. */
export function progressBar(t: TaskFigures, width: number): string {
  const p = t.progress;
  if (!p || p.total === 0 || width <= 0) return '';
  const full = Math.floor((width * p.done) / p.total); // full only when all are done
  return '█'.repeat(full) + '░'.repeat(width - full);
}

export function clientsAndScheduler(t: TaskFigures, mem: (bytes: number) => string): string {
  return `${t.clients} client${t.clients === 1 ? '' : 's'} · scheduler ${Math.round(t.schedulerCpu)}% ${mem(t.schedulerMemoryBytes)}`;
}
