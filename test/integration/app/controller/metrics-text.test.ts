// `up --metrics`: the status document in Prometheus's text format.
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { serveMetrics } from '../../../../src/app/controller/metrics-server.js';
import { metricsText } from '../../../../src/app/controller/metrics-text.js';
import type { ExpectedError } from '../../../../src/errors.js';
import { snapshot } from '../../../unit/ui/fixture.js';

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

describe('serveMetrics', () => {
  it('refuses a port in use and suggests another one than it', async () => {
    const refusal = (port: number) =>
      serveMetrics({ host: '127.0.0.1', port }, () => undefined).then(
        (s) => (void s.close(), undefined),
        (e: unknown) => e as ExpectedError,
      );
    const taken = net.createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', () => r()));
    const port = (taken.address() as net.AddressInfo).port;
    // 9464 taken too: by this test, or (the listen fails) by something else already.
    const at9464 = net.createServer().on('error', () => undefined);
    await new Promise<void>((r) => at9464.listen(9464, '127.0.0.1', () => r()).once('error', () => r()));
    try {
      const err = await refusal(port);
      expect(err?.message).toBe(`--metrics 127.0.0.1:${port}: the port is in use`);
      expect(err?.hint).toBe('choose another port, e.g. --metrics :9464');
      expect((await refusal(9464))?.hint).toBe('choose another port, e.g. --metrics :9465');
    } finally {
      taken.close();
      at9464.close();
    }
  });
});
