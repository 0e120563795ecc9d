// What `attach` shows before the live stream: the newest recorded lines of the current
// run, every process merged in the order Dask's timestamps give (a line without one
// stays after the line before it in its file).
import type { ClusterPaths } from '../../control/paths.js';
import { listRuns, pickRun, runDir } from '../../control/log-runs.js';
import { LogStore } from '../../control/log-store.js';
import type { ClusterState } from '../../control/state-file.js';
import type { ClusterEvent } from '../../events/types.js';

const STAMP = /^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+) /;

export async function recentLines(paths: ClusterPaths, state: ClusterState, perProcess = 100): Promise<Extract<ClusterEvent, { kind: 'process-line' }>[]> {
  const run = pickRun(listRuns(paths.logsDir), state.runId, false);
  if (!run) return [];
  const store = new LogStore(runDir(paths.logsDir, run));
  const hostOf = new Map(state.processes.map((p) => [p.name, p.host]));
  const scheduler = state.spec.schedulerHost.name;
  const rows: { at: string; file: number; i: number; e: Extract<ClusterEvent, { kind: 'process-line' }> }[] = [];
  const names = store.names();
  for (const [file, name] of names.entries()) {
    const host = name === 'scheduler' ? scheduler : (hostOf.get(name) ?? '');
    let at = '';
    for (const [i, line] of (await store.tail(name, perProcess).catch(() => [] as string[])).entries()) {
      at = STAMP.exec(line)?.[1] ?? at;
      rows.push({ at, file, i, e: { kind: 'process-line', host, name, stream: 'stderr', line } });
    }
  }
  rows.sort((a, b) => a.at.localeCompare(b.at) || a.file - b.file || a.i - b.i);
  return rows.map((r) => r.e);
}
