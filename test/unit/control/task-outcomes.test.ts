// Erred work stays erred: the preload's answer after a task killed its worker 4 times and
// its client left (captured from e2e task-outcomes on distributed 2024.12), read, written
// for `status` and said once as an event naming the prefix.
import { describe, expect, it } from 'vitest';
import { parseDemand } from '../../../src/dask/demand-json.js';
import { prefixLines, progressText } from '../../../src/control/task-figures-text.js';
import { statusText } from '../../../src/app/commands/status-text.js';
import { KilledWorkerNotices } from '../../../src/app/controller/killed-worker-notices.js';
import type { TaskFigures } from '../../../src/control/status-document.js';
import { snapshot } from '../ui/fixture.js';

const req = { method: 'GET', path: '/api/v1/sshcluster/demand' };
const captured = {
  version: 1,
  distributed: '2024.12.1',
  groups: [],
  plain_pending: 0,
  workers: [],
  figures: {
    tasks: { released: 0, memory: 0 },
    clients: 0,
    scheduler: { cpu: 2.0, memory: 120000000 },
    progress: {
      done: 3,
      total: 4,
      erred: 1,
      killed_workers: 4,
      prefixes: [
        { prefix: 'boom', done: 0, erred: 1, total: 1, killed_workers: 4 },
        { prefix: 'ok', done: 3, erred: 0, total: 3, killed_workers: 0 },
      ],
    },
  },
};

function figures(): TaskFigures {
  const f = parseDemand(req, captured).figures!;
  return {
    byState: f.tasks,
    progress: f.progress,
    clients: f.clients,
    schedulerCpu: f.scheduler.cpu,
    schedulerMemoryBytes: f.scheduler.memoryBytes,
  };
}

describe('task outcomes', () => {
  it('reads done, erred and killed workers, by prefix too, and drops what is not a prefix', () => {
    expect(figures().progress).toEqual({
      done: 3,
      total: 4,
      erred: 1,
      killedWorkers: 4,
      prefixes: [
        { prefix: 'boom', done: 0, erred: 1, total: 1, killedWorkers: 4 },
        { prefix: 'ok', done: 3, erred: 0, total: 3, killedWorkers: 0 },
      ],
    });
    const odd = parseDemand(req, {
      ...captured,
      figures: { ...captured.figures, progress: { done: 1, total: 1, prefixes: [7, { done: 1 }] } },
    });
    expect(odd.figures?.progress).toEqual({ done: 1, total: 1, erred: 0, prefixes: [] });
  });

  it('says 3/4 done and 1 erred, not 4/4 done, with a line per prefix in status', () => {
    const t = figures();
    expect(progressText(t)).toBe('3/4 done (75%), 1 erred');
    expect(prefixLines(t)).toEqual(['boom: 0/1 done, 1 erred, killed 4 workers', 'ok: 3/3 done']);
    const lines = statusText({ ...snapshot(), tasks: t }).split('\n');
    expect(lines).toContain('  tasks: none; newest computation 3/4 done (75%), 1 erred');
    expect(lines).toContain('    boom: 0/1 done, 1 erred, killed 4 workers');
  });

  it('leaves out the per-prefix lines for one prefix that went well', () => {
    const t = figures();
    t.progress = {
      done: 3,
      total: 3,
      erred: 0,
      prefixes: [{ prefix: 'ok', done: 3, erred: 0, total: 3, killedWorkers: 0 }],
    };
    expect(prefixLines(t)).toEqual([]);
  });

  it('names the prefix that killed workers and how often, once per increase', () => {
    const n = new KilledWorkerNotices();
    expect(n.take(figures())).toEqual([
      "tasks of prefix boom killed the worker running them 4 times; 1 of its 1 task erred (KilledWorker after Dask's allowed failures)",
    ]);
    expect(n.take(figures())).toEqual([]);
    expect(n.take(undefined)).toEqual([]);
  });
});
