// A worker's start adds our preloads' lines to its log (captured from a real local
// cluster, distributed 2022.12); they stay out of the log view unless it fails.
import { describe, expect, it } from 'vitest';
import { QuietLines } from '../../../../src/app/controller/quiet-lines.js';
import { isSetupLine } from '../../../../src/dask/setup-lines.js';
import type { ClusterEvent } from '../../../../src/events/types.js';

const WORKER_START = [
  '2026-12-01 21:46:09,597 - distributed.preloading - INFO - Creating preload: scheduler_wait',
  '2026-12-01 21:46:09,598 - distributed.preloading - INFO - Import preload module: scheduler_wait',
  '2026-12-01 21:46:09,613 - distributed.preloading - INFO - Run preload setup: scheduler_wait',
  '2026-12-01 21:46:09,614 - distributed.preloading - INFO - Creating preload: ssl_error_queue',
  '2026-12-01 21:46:09,615 - distributed.preloading - INFO - Import preload module: /tmp/sshcluster-0/x/ssl_error_queue.py',
  '2026-12-01 21:46:09,616 - distributed.preloading - INFO - Run preload setup: ssl_error_queue',
  "2026-12-01 21:46:09,623 - distributed.nanny - INFO -         Start Nanny at: 'tcp://127.0.0.1:39567'",
  '2026-12-01 21:46:10,932 - distributed.worker - INFO -       Start worker at:      tcp://127.0.0.1:35343',
];
const SCHEDULER_START = [
  '2026-12-01 21:46:09,470 - distributed.preloading - INFO - Import preload module: scheduler_demand',
  '2026-12-01 21:46:09,479 - distributed.preloading - INFO - Creating preload: scheduler_demand',
  '2026-12-01 21:46:09,522 - distributed.scheduler - INFO -   Scheduler at:      tcp://127.0.0.1:8786',
  '2026-12-01 21:46:09,526 - distributed.preloading - INFO - Run preload setup: scheduler_demand',
  '2026-12-01 21:46:09,526 - distributed.sshcluster.demand - INFO - sshcluster demand route at /api/v1/sshcluster/demand',
];

describe('our start-up lines', () => {
  it("are ours: our preloads' steps and the demand route line, not a user's preload nor Dask's own lines", () => {
    expect(WORKER_START.filter(isSetupLine)).toHaveLength(6);
    expect(SCHEDULER_START.filter(isSetupLine)).toHaveLength(4);
    expect(isSetupLine('2026-12-01 21:46:09,597 - distributed.preloading - INFO - Creating preload: my_preload')).toBe(
      false,
    );
    expect(
      isSetupLine('2026-12-01 21:46:09,597 - distributed.preloading - ERROR - Failed to start preload: scheduler_wait'),
    ).toBe(false);
    expect(
      isSetupLine('sshcluster: python /usr/bin/python3 (first with distributed of python3, /usr/bin/python3, python)'),
    ).toBe(false);
  });

  it('are held from the log while it runs, and given back before an unexpected exit', () => {
    const q = new QuietLines(isSetupLine);
    const line = (name: string, l: string): ClusterEvent => ({
      kind: 'process-line',
      host: 'n1',
      name,
      stream: 'stderr',
      line: l,
    });
    const shown = (events: ClusterEvent[]) => events.flatMap((e) => q.pass(e));
    const started = shown(WORKER_START.map((l) => line('n1-0', l)));
    expect(started.map((e) => e.kind === 'process-line' && e.line)).toEqual(WORKER_START.slice(6));
    // Stopped on purpose: nothing comes back.
    expect(
      shown([{ kind: 'process-exit', host: 'n1', name: 'n1-0', code: 0, signal: null, expected: true }]),
    ).toHaveLength(1);
    // Failed: the held lines first, then the exit.
    shown(WORKER_START.map((l) => line('n1-1', l)));
    const failed = shown([{ kind: 'process-exit', host: 'n1', name: 'n1-1', code: 1, signal: null, expected: false }]);
    expect(failed.map((e) => (e.kind === 'process-line' ? e.line : e.kind))).toEqual([
      ...WORKER_START.slice(0, 6),
      'process-exit',
    ]);
  });

  it('keep at most a bound per process', () => {
    const q = new QuietLines(() => true, 3);
    for (let i = 0; i < 10; i++) q.pass({ kind: 'process-line', host: 'h', name: 'w', stream: 'stdout', line: `${i}` });
    const out = q.pass({ kind: 'process-exit', host: 'h', name: 'w', code: 1, signal: null, expected: false });
    expect(out.map((e) => (e.kind === 'process-line' ? e.line : e.kind))).toEqual(['7', '8', '9', 'process-exit']);
  });
});
