// `sshcluster status` as text: the workers' CPU, memory and task figures beside their
// state (the JSON had them, the text did not), '-' where the scheduler gave none, and
// unmet adaptive demand on its own line.
import { describe, expect, it } from 'vitest';
import { statusText } from '../../../../src/app/commands/status-text.js';
import { snapshot } from '../../ui/fixture.js';

describe('statusText', () => {
  it('shows each worker\'s CPU, memory/limit and executing tasks', () => {
    const lines = statusText(snapshot()).split('\n');
    expect(lines).toContain('WORKER                  STATE       PID      RESTARTS  CPU    MEMORY      TASKS  ADDRESS');
    expect(lines).toContain('node1-0                 running     100      0         13%    150M/2.0G   1      tcp://node1:40000');
    expect(lines).toContain('node2-0                 stopped     -        0         13%    150M/2.0G   1      -');
  });

  it('prints - for figures the scheduler did not give, and the unmet demand', () => {
    const st = snapshot();
    st.workers = st.workers.map(({ cpu: _c, memoryBytes: _m, memoryLimitBytes: _l, executing: _e, ...w }) => w);
    st.adaptive = { ...st.adaptive!, unmet: ['want 1 GPU worker, 0 placeable: no host declares GPU'] };
    const text = statusText(st);
    expect(text).toContain('node1-0                 running     100      0         -      -           -      tcp://node1:40000');
    expect(text).toContain('\n  unmet: want 1 GPU worker, 0 placeable: no host declares GPU\n');
  });
});
