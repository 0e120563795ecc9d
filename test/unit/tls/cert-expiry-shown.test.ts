// Where a cluster's certificate end is shown: up's TLS step (a warning from 7 days
// before, the end recorded for status), status as text, the dashboard header, and
// check on the host file of a cluster this machine has. Short lifetimes (validDays).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { render } from 'ink-testing-library';
import { createElement } from 'react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { certificatesText, clusterCertificates } from '../../../src/app/check/check-certs.js';
import { checkJson } from '../../../src/app/check/check-format.js';
import { statusText } from '../../../src/app/commands/status-text.js';
import { setUpTls } from '../../../src/app/tls-setup.js';
import { clusterPaths, ensureClusterDir, stateRoot } from '../../../src/control/paths.js';
import { writeState } from '../../../src/control/state-file.js';
import { EventBus, type ClusterEvent } from '../../../src/events/types.js';
import { certificatesStatus } from '../../../src/tls/cert-expiry.js';
import { Header } from '../../../src/ui/components/Header.js';
import { initialModel } from '../../../src/ui/state/model.js';
import { testSpec } from '../config/spec-fixture.js';
import { testContext, type TestContext } from '../app/context-fixture.js';
import { snapshot } from '../ui/fixture.js';

const DAY = 86_400_000;
const now = new Date('2026-11-28T12:00:00Z');
let ctx: TestContext;
beforeEach(() => (ctx = testContext()));
afterEach(() => ctx.cleanup());

describe('certificate expiry, shown', () => {
  it('up: new certificates for 3 days are recorded and warned about at once; 30 days, not', async () => {
    const events: ClusterEvent[] = [];
    const bus = new EventBus();
    bus.on((e) => events.push(e));
    const spec = { ...testSpec({ workers: ['n1'] }), security: { kind: 'tls' as const } };
    const paths = clusterPaths(stateRoot(ctx.env, ctx.homedir), spec.name);
    const tls = await setUpTls({ spec, paths, clusterId: 'id1', bus, now, validDays: 3 });
    expect(tls?.notAfter).toBe('2026-12-01T12:00:00.000Z');
    expect(
      events.filter((e) => e.kind === 'notice' && e.level === 'warning').map((e) => e.kind === 'notice' && e.message),
    ).toEqual([
      "the cluster's TLS certificates expire at 2026-12-01 12:00 UTC (in 3 day(s)): from then no new worker or client can connect; sshcluster down, then up, makes new ones",
    ]);
    const other = clusterPaths(stateRoot(ctx.env, ctx.homedir), 'other');
    events.length = 0;
    expect((await setUpTls({ spec, paths: other, clusterId: 'id2', bus, now }))?.notAfter).toBe(
      '2026-12-28T12:00:00.000Z',
    );
    expect(events.filter((e) => e.kind === 'notice' && e.level === 'warning')).toEqual([]);
  });

  it('status as text: the end, and the warning when near', () => {
    const far = statusText({
      ...snapshot(),
      certificates: certificatesStatus('2026-12-28T12:00:00.000Z', now.getTime()),
    }).split('\n');
    expect(far).toContain('  certificates: valid until 2026-12-28 12:00 UTC (30 day(s) left)');
    expect(far.some((l) => l.startsWith('  warning:'))).toBe(false);
    const near = statusText({
      ...snapshot(),
      certificates: certificatesStatus('2026-12-01T12:00:00.000Z', now.getTime()),
    }).split('\n');
    expect(near).toContain('  certificates: valid until 2026-12-01 12:00 UTC (3 day(s) left)');
    expect(near).toContain(
      "  warning: the cluster's TLS certificates expire at 2026-12-01 12:00 UTC (in 3 day(s)): from then no new worker or client can connect; sshcluster down, then up, makes new ones",
    );
    expect(statusText({ ...snapshot(), certificates: null })).not.toContain('certificates');
  });

  it('the dashboard header: one short piece from 7 days before, nothing before that', () => {
    const header = (notAfter: string, at: number) => {
      const m = { ...initialModel('lab'), certificates: certificatesStatus(notAfter, at) };
      const r = render(createElement(Header, { m, now: at }));
      const first = (r.lastFrame() ?? '').split('\n')[0]!;
      r.unmount();
      return first;
    };
    expect(header('2026-12-01T12:00:00.000Z', now.getTime())).toMatch(/ {2}certs expire in 3d$/);
    expect(header('2026-11-28T15:30:00.000Z', now.getTime())).toMatch(/ {2}certs expire in 3h$/);
    expect(header('2026-11-28T11:00:00.000Z', now.getTime())).toMatch(/ {2}certs EXPIRED$/);
    expect(header('2026-12-28T12:00:00.000Z', now.getTime())).not.toContain('certs');
  });

  it("check on a cluster's host file: when its certificates end (text and --json); nothing for a cluster not here", async () => {
    const spec = { ...testSpec({ workers: ['n1'] }), security: { kind: 'tls' as const } };
    const paths = clusterPaths(stateRoot(ctx.env, ctx.homedir), spec.name);
    await ensureClusterDir(paths);
    await writeState(paths.stateFile, {
      version: 1,
      name: spec.name,
      clusterId: 'id1',
      spec,
      controller: null,
      schedulerAddress: 'tls://n0:8786',
      dashboardUrl: '',
      processes: [],
      desiredWorkers: 1,
      updatedAt: '',
    });
    await setUpTls({ spec, paths, clusterId: 'id1', bus: new EventBus(), now, validDays: 2 });
    const c = await clusterCertificates(ctx, spec.name, now.getTime() + DAY);
    expect(c).toEqual({
      cluster: spec.name,
      certificates: {
        notAfter: '2026-11-30T12:00:00.000Z',
        expiresInDays: 1,
        warning: expect.stringContaining('(in 1 day(s))'),
      },
    });
    expect(certificatesText(c)).toBe(
      `\ncluster "${spec.name}" of this file: its TLS certificates are valid until 2026-11-30 12:00 UTC (1 day(s) left)\n  warning: ${c!.certificates.warning}\n`,
    );
    const doc = JSON.parse(checkJson({ rows: [], problems: [], launchable: true } as never, c));
    expect(doc.certificates).toEqual({ cluster: spec.name, ...c!.certificates });
    expect(await clusterCertificates(ctx, 'elsewhere', now.getTime())).toBeUndefined();
    expect(certificatesText(undefined)).toBe('');
  });
});
