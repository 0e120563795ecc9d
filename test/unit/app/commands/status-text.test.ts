// `sshcluster status` as text: the workers' CPU, memory and task figures beside their
// state (the JSON had them, the text did not), '-' where the scheduler gave none, and
// unmet adaptive demand on its own line.
import { describe, expect, it } from 'vitest';
import { statusText } from '../../../../src/app/commands/status-text.js';
import { snapshot } from '../../ui/fixture.js';

describe('statusText', () => {
  it("shows each worker's CPU, memory/limit and executing tasks", () => {
    const lines = statusText(snapshot()).split('\n');
    expect(lines).toContain(
      'WORKER                  STATE       PID      RESTARTS  CPU    MEMORY      TASKS  IDLE   ADDRESS',
    );
    expect(lines).toContain(
      'node1-0                 running     100      0         13%    150M/2.0G   1      -      tcp://node1:40000',
    );
    expect(lines).toContain(
      'node2-0                 stopped     -        0         13%    150M/2.0G   1      -      -',
    );
  });

  // A drain kept a worker whose results could not move: the header said "workers 0/0"
  // above a worker row in state held, still running.
  it('counts held workers in the header beside the running/desired ones', () => {
    const st = snapshot();
    st.desiredWorkers = 0;
    st.workers = st.workers.map((w, i) => ({ ...w, state: i === 0 ? ('held' as const) : ('stopped' as const) }));
    expect(statusText(st).split('\n')[0]).toMatch(/  workers 0\/0 \(\+1 held\)$/);
    expect(statusText(snapshot()).split('\n')[0]).not.toContain('held');
  });

  // helper-23's trial: status said "up 7385s" and "12.0G" where the dashboard said "2h03m" and "12G".
  it('writes the uptime and memory as the dashboard does', () => {
    const st = { ...snapshot(), uptimeS: 7385 };
    st.workers = st.workers.map((w) => ({ ...w, memoryBytes: 150 * 2 ** 20, memoryLimitBytes: 12 * 2 ** 30 }));
    const lines = statusText(st).split('\n');
    expect(lines[0]).toMatch(/^cluster \S+  up 2h03m  workers /);
    expect(lines).toContain(
      'node1-0                 running     100      0         13%    150M/12G    1      -      tcp://node1:40000',
    );
  });

  it('says reconnecting for a host connecting again after it failed, with why', () => {
    const st = snapshot();
    const text = statusText({
      ...st,
      hosts: st.hosts.map((h) => (h.name === 'node2' ? { ...h, state: 'connecting' as const } : h)),
    });
    expect(text).toMatch(/^node2 +reconnecting +\d+ +connect ECONNREFUSED 10\.0\.0\.3:22$/m);
  });

  it("shows the scheduler's task figures: states, the newest computation's progress, clients, its own load; a worker's processing and idle time", () => {
    const st = snapshot();
    st.tasks = {
      byState: { processing: 12, queued: 40, memory: 108, released: 3 },
      progress: { done: 108, total: 160, erred: 2 },
      clients: 1,
      schedulerCpu: 3.4,
      schedulerMemoryBytes: 120 * 2 ** 20,
    };
    st.workers = st.workers.map((w, i) => ({ ...w, processing: 4 + i, idleS: i === 0 ? 12.7 : undefined }));
    const lines = statusText(st).split('\n');
    expect(lines).toContain(
      '  tasks: 40 queued, 12 processing, 108 in memory; newest computation 108/160 done (67%), 2 erred',
    );
    expect(lines).toContain('  1 client · scheduler 3% 120M');
    expect(lines).toContain(
      'node1-0                 running     100      0         13%    150M/2.0G   4      12s    tcp://node1:40000',
    );
  });

  it('prints - for figures the scheduler did not give, and the unmet demand', () => {
    const st = snapshot();
    st.workers = st.workers.map(({ cpu: _c, memoryBytes: _m, memoryLimitBytes: _l, executing: _e, ...w }) => w);
    st.adaptive = { ...st.adaptive!, unmet: ['want 1 GPU worker, 0 placeable: no host declares GPU'] };
    const text = statusText(st);
    expect(text).toContain(
      'node1-0                 running     100      0         -      -           -      -      tcp://node1:40000',
    );
    expect(text).toContain('\n  unmet: want 1 GPU worker, 0 placeable: no host declares GPU\n');
  });
});
