// `up --metrics`: the status document in Prometheus's text format.
import { describe, expect, it } from 'vitest';
import { metricsText } from '../../../../src/app/controller/metrics-text.js';
import { snapshot } from '../../ui/fixture.js';

describe('metricsText', () => {
  it('has workers wanted and by state, restarts, host reachability, adaptive target and unmet demand', () => {
    const st = snapshot();
    st.adaptive = { ...st.adaptive!, unmet: ['want 1 GPU worker, 0 placeable'] };
    const text = metricsText(st);
    const lines = text.split('\n');
    expect(lines).toContain('sshcluster_workers_desired{cluster="lab"} 3');
    expect(lines).toContain('sshcluster_workers{cluster="lab",state="running"} 2');
    expect(lines).toContain('sshcluster_host_up{cluster="lab",host="node2",state="unreachable"} 0');
    expect(lines).toContain('sshcluster_host_up{cluster="lab",host="node1",state="up"} 1');
    expect(lines).toContain('sshcluster_adaptive_target{cluster="lab"} 3');
    expect(lines).toContain('sshcluster_unmet_demand_kinds{cluster="lab"} 1');
    expect(lines).toContain('# TYPE sshcluster_worker_restarts_total counter');
    expect(text.endsWith('\n')).toBe(true);
  });

  it('escapes label values (names come from a host file and from hosts)', () => {
    const st = snapshot({ name: 'a"b\\c' });
    expect(metricsText(st)).toContain('sshcluster_workers_desired{cluster="a\\"b\\\\c"} 3');
  });
});
