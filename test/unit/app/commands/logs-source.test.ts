// `logs` names a line's process as the dashboard's log view does (one function, logSource):
// the scheduler with its host (`n0/scheduler │`), a worker by its name (`n1-0 │`).
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runLogs } from '../../../../src/app/commands/cluster-clients.js';
import { clusterPaths, ensureClusterDir, stateRoot } from '../../../../src/control/paths.js';
import { writeState } from '../../../../src/control/state-file.js';
import { logRows } from '../../../../src/ui/components/log-rows.js';
import { testSpec } from '../../config/spec-fixture.js';
import { testContext, type TestContext } from '../context-fixture.js';

let ctx: TestContext;
afterEach(() => ctx.cleanup());

const RUN = '20260101T000000Z-abcdef';

/** A cluster whose controller is gone, its state and one recorded run left. */
async function leftCluster(): Promise<void> {
  const p = clusterPaths(stateRoot(ctx.env, ctx.homedir), 'lab');
  await ensureClusterDir(p);
  await writeState(p.stateFile, {
    version: 1,
    name: 'lab',
    clusterId: 'id-lab',
    spec: { ...testSpec({ workers: ['n1'] }), name: 'lab' },
    controller: null,
    schedulerAddress: 'tcp://127.0.0.1:1',
    dashboardUrl: '',
    processes: [
      { name: 'scheduler', host: 'n0', role: 'scheduler' },
      { name: 'n1-0', host: 'n1', role: 'worker' },
    ],
    desiredWorkers: 1,
    updatedAt: '',
    runId: RUN,
  });
  const run = path.join(p.logsDir, RUN);
  fs.mkdirSync(run, { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(run, 'scheduler.log'), 'the scheduler line\n');
  fs.writeFileSync(path.join(run, 'n1-0.log'), 'the worker line\n');
}

describe('logs and the dashboard name a line the same', () => {
  it('the scheduler as host/scheduler, a worker by its name', async () => {
    ctx = testContext();
    await leftCluster();
    expect(await runLogs(ctx, { name: 'lab', follow: false, tail: 10 })).toBe(0);
    const dashboard = (host: string, source: string, text: string) =>
      logRows({ seq: 0, host, source, text, level: 'info' }, 200)
        .map((r) => `${r.lead} │ ${r.text}`)
        .join('');
    expect(ctx.out().split('\n').filter(Boolean).sort()).toEqual(
      [dashboard('n1', 'n1-0', 'the worker line'), dashboard('n0', 'scheduler', 'the scheduler line')].sort(),
    );
    expect(ctx.out()).toContain('n0/scheduler │ the scheduler line\n');
  });
});
