// A task that kills the worker running it (os._exit, a segfault, the OOM killer) is
// retried elsewhere until Dask gives up with KilledWorker. The figures count it per task
// prefix; this says so once per increase, naming the prefix and how many times.
import type { TaskFigures } from '../../control/status-document.js';

export class KilledWorkerNotices {
  /** prefix → workers killed, as last said */
  private said = new Map<string, number>();

  /** Warnings for every prefix whose count rose since the last call. */
  take(t: TaskFigures | undefined): string[] {
    const out: string[] = [];
    for (const p of t?.progress?.prefixes ?? []) {
      if (p.killedWorkers <= (this.said.get(p.prefix) ?? 0)) continue;
      this.said.set(p.prefix, p.killedWorkers);
      const times = p.killedWorkers === 1 ? 'once' : `${p.killedWorkers} times`;
      const erred = p.erred
        ? `; ${p.erred} of its ${p.total} task${p.total === 1 ? '' : 's'} erred (KilledWorker after Dask's allowed failures)`
        : '';
      out.push(`tasks of prefix ${p.prefix} killed the worker running them ${times}${erred}`);
    }
    return out;
  }
}
