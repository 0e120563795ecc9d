// `up --detach --json` prints NDJSON only (issue 12, finding 9): the parent shows the
// background controller's start-up events and the hand-over as events. The controller
// is a stand-in script that reports over the same IPC channel as the real one.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runDetached, whyItEnded } from '../../../../src/app/commands/detach.js';
import { testContext, type TestContext } from '../../../unit/app/context-fixture.js';

let ctx: TestContext;
afterEach(() => ctx.cleanup());

function fakeController(dir: string): string {
  const script = path.join(dir, 'fake-controller.mjs');
  fs.writeFileSync(
    script,
    `
    process.send({ kind: 'host-state', host: 'a', state: 'starting' });
    process.send({ kind: 'process-line', host: 'a', name: 'scheduler', stream: 'stderr', line: 'not shown' });
    process.send({ kind: 'cluster-up', schedulerAddress: 'tcp://a:8786', dashboardUrl: 'http://127.0.0.1:8787/status', workers: [{ name: 'b-0', address: 'tcp://b:1' }], failedHosts: [] });
    process.on('disconnect', () => process.exit(0));
  `,
  );
  return script;
}

async function detach(json: boolean): Promise<number> {
  ctx = testContext();
  const file = path.join(ctx.stateHome, 'lab.yaml');
  fs.writeFileSync(file, 'hosts: [a, b]\n');
  return runDetached(ctx, { file, json, mainScript: fakeController(ctx.stateHome), childArgs: [] });
}

describe('up --detach output', () => {
  it('with --json: one JSON event per line, the hand-over included', async () => {
    expect(await detach(true)).toBe(0);
    const lines = ctx.out().trimEnd().split('\n');
    const events = lines.map((l) => JSON.parse(l) as { kind: string; message?: string });
    expect(events.map((e) => e.kind)).toEqual(['host-state', 'cluster-up', 'notice']);
    expect(events[2]!.message).toMatch(/^controller running in the background \(pid \d+\); log: .*controller\.log$/);
  });
  it('without: the plain lines and where the controller runs', async () => {
    expect(await detach(false)).toBe(0);
    expect(ctx.out()).toContain('Cluster up: 1 worker(s)');
    expect(ctx.out()).toMatch(/Controller running in the background \(pid \d+\)/);
  });
});

describe("up --detach: the controller's end, when it exits before the cluster is up", () => {
  it('is said as every error is, `sshcluster: …`, then why from its log', async () => {
    ctx = testContext();
    const file = path.join(ctx.stateHome, 'lab.yaml');
    fs.writeFileSync(file, 'hosts: [a, b]\n');
    const script = path.join(ctx.stateHome, 'failing-controller.mjs');
    fs.writeFileSync(
      script,
      `console.error('sshcluster: scheduler on a failed: scheduler did not answer /health within 0.001s'); process.exit(1);`,
    );
    expect(await runDetached(ctx, { file, json: false, mainScript: script, childArgs: [] })).toBe(1);
    // Was "the background controller exited (code 1) …" with no "sshcluster: " before it.
    expect(ctx.err().split('\n').slice(0, 2)).toEqual([
      'sshcluster: the background controller exited (code 1) before the cluster was up',
      '  sshcluster: scheduler on a failed: scheduler did not answer /health within 0.001s',
    ]);
  });

  const log = [
    '[h0] scheduler exited unexpectedly (code 1)',
    'Stopping cluster (start-up failed) …',
    'Cluster stopped.',
    '  verified: no process of this cluster is left on any host',
    'sshcluster: scheduler on h0 failed: port already in use (another scheduler? set scheduler_options.port)',
    '  last output:',
    ...Array.from({ length: 10 }, (_, i) => `    traceback line ${i}`),
  ];

  it('is its error line and what follows (not only the end of the scheduler output it quotes)', () => {
    const shown = whyItEnded(log);
    expect(shown[0]).toBe(
      'sshcluster: scheduler on h0 failed: port already in use (another scheduler? set scheduler_options.port)',
    );
    expect(shown.at(-1)).toBe('    traceback line 9');
    expect(shown).toHaveLength(12);
  });

  it('is the last 8 lines when the log holds no error line (a crash Node printed)', () => {
    expect(whyItEnded(log.slice(0, 4).concat(['node: killed']))).toEqual(
      [...log.slice(0, 4), 'node: killed'].slice(-8),
    );
    expect(whyItEnded(Array.from({ length: 20 }, (_, i) => `l${i}`))).toEqual(
      Array.from({ length: 8 }, (_, i) => `l${i + 12}`),
    );
  });

  it('is at most 24 lines from the error on', () => {
    expect(whyItEnded(['sshcluster: x', ...Array.from({ length: 40 }, () => 'y')])).toHaveLength(24);
  });
});

describe('up --detach whose controller fails before the cluster is up', () => {
  /** A stand-in controller that fails as a real one whose only host is unreachable; `record`: a run with a line first. */
  function failing(dir: string, record: boolean): string {
    const script = path.join(dir, 'failing-controller.mjs');
    const run = path.join(dir, 'sshcluster', 'lab', 'logs', '20260101T000000Z-abcdef');
    fs.writeFileSync(
      script,
      `
      import fs from 'node:fs';
      if (${record}) { fs.mkdirSync(${JSON.stringify(run)}, { recursive: true }); fs.writeFileSync(${JSON.stringify(run)} + '/scheduler.log', 'Address already in use\\n'); }
      console.log('sshcluster: scheduler host a failed: cannot reach a:22 (ECONNREFUSED)');
      process.exit(1);
    `,
    );
    return script;
  }

  async function detachFailing(record: boolean): Promise<number> {
    ctx = testContext();
    const file = path.join(ctx.stateHome, 'lab.yaml');
    fs.writeFileSync(file, 'hosts: [a, b]\n');
    return runDetached(ctx, { file, json: false, mainScript: failing(ctx.stateHome, record), childArgs: [] });
  }

  it('shows why and leaves no dir of the cluster (its controller.log was all there was)', async () => {
    expect(await detachFailing(false)).toBe(1);
    expect(ctx.err()).toContain('  sshcluster: scheduler host a failed: cannot reach a:22 (ECONNREFUSED)');
    expect(fs.readdirSync(path.join(ctx.stateHome, 'sshcluster'))).toEqual([]);
  });

  it('keeps the dir, its controller.log and the run when the run recorded lines (logs --name reads them)', async () => {
    expect(await detachFailing(true)).toBe(1);
    expect(fs.readdirSync(path.join(ctx.stateHome, 'sshcluster', 'lab')).sort()).toEqual(['controller.log', 'logs']);
  });
});
