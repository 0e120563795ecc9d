// Remote output never reaches a terminal raw (issue 12, finding 4): every sink that
// shows remote text to a person escapes control characters other than tab.
import { newRunId } from '../../../src/control/log-runs.js';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runLogs } from '../../../src/app/commands/cluster-clients.js';
import { renderFolds } from '../../../src/app/exec/fold-output.js';
import { statusText } from '../../../src/app/commands/status-text.js';
import type { StatusJson } from '../../../src/control/status-document.js';
import { writeState, type ClusterRecord } from '../../../src/control/state-file.js';
import { ndjsonSink, plainSink } from '../../../src/events/plain-sink.js';
import { jsonText, safeDeep, safeLine, safeText } from '../../../src/events/terminal-text.js';
import { DashboardStore } from '../../../src/ui/store.js';
import { testContext, type TestContext } from '../app/context-fixture.js';
import { testSpec } from '../config/spec-fixture.js';

// What the security review's worker printed: set the title, clear the screen; plus a C1 CSI.
const EVIL = '\x1b]0;HACKED\x07\x1b[2J\x9b31m\rX';
const SHOWN = '\\x1b]0;HACKED\\x07\\x1b[2J\\x9b31m\\x0dX';
// Any of these reaching a terminal raw is the bug.
const RAW = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

describe('terminal-safe text', () => {
  it('shows C0 and C1 control characters as \\x escapes and keeps tabs', () => {
    expect(safeLine(`a\t${EVIL}b`)).toBe(`a\t${SHOWN}b`);
    expect(safeLine('x\ny')).toBe('x\\x0ay');
    expect(safeLine('\x7f')).toBe('\\x7f');
    expect(safeLine('plain ünïcode │ text')).toBe('plain ünïcode │ text');
  });
  it('keeps newlines in multi-line text, CRLF as one', () => {
    expect(safeText('a\r\nb\x1b[Kc\n')).toBe('a\nb\\x1b[Kc\n');
  });
  it('escapes every string of a JSON-like value and returns clean values as they are', () => {
    const clean = { a: ['x'], b: 1 };
    expect(safeDeep(clean)).toBe(clean);
    expect(safeDeep({ a: [EVIL], b: { c: 'ok', d: null } })).toEqual({ a: [SHOWN], b: { c: 'ok', d: null } });
  });
  it('writes JSON with DEL and C1 as \\u escapes, still parseable to the same text', () => {
    const text = jsonText({ line: EVIL });
    expect(text).not.toMatch(RAW);
    expect(JSON.parse(text)).toEqual({ line: EVIL });
  });
});

describe('sinks of remote text', () => {
  it('plain lines (up --no-tui, attach --no-tui, up --detach) escape process output and reasons', () => {
    let out = '';
    const sink = plainSink((t) => (out += t));
    sink({ kind: 'process-line', host: 'n1', name: 'n1-0', stream: 'stdout', line: EVIL });
    sink({ kind: 'host-state', host: 'n2', state: 'failed', reason: `python said ${EVIL}`, detail: [EVIL] });
    sink({ kind: 'notice', level: 'warning', message: EVIL });
    expect(out).not.toMatch(RAW);
    expect(out).toContain(`n1-0 │ ${SHOWN}`);
    expect(out).toContain(`[n2] failed: python said ${SHOWN}\n    ${SHOWN}`);
  });
  it('NDJSON (up --json) stays valid JSON with no raw control character', () => {
    let out = '';
    ndjsonSink((t) => (out += t))({ kind: 'process-line', host: 'n1', name: 'n1-0', stream: 'stdout', line: EVIL });
    expect(out).not.toMatch(RAW);
    expect(JSON.parse(out)).toMatchObject({ line: EVIL });
  });
  it('exec folded output escapes what the hosts printed', () => {
    const text = renderFolds(
      [{ hosts: ['n1', 'n2'], status: { kind: 'exit', code: 1 }, output: `${EVIL}x\nnext\n` }],
      2,
    );
    expect(text).not.toMatch(RAW);
    expect(text).toContain(`${SHOWN}x\nnext\n`);
  });
  it('status text escapes host errors and names', () => {
    const st: StatusJson = {
      name: `c${EVIL}`,
      clusterId: 'id',
      schedulerAddress: 'tcp://n0:8786',
      dashboardUrl: 'http://x',
      startedAt: '',
      uptimeS: 1,
      controllerPid: 1,
      desiredWorkers: 1,
      adaptive: null,
      hosts: [{ name: 'n1', roles: ['worker'], state: 'degraded', lastError: `died: ${EVIL}\nmore`, workers: 0 }],
      workers: [
        {
          name: 'n1-0',
          host: 'n1',
          pid: null,
          state: 'crashed',
          restarts: 5,
          address: EVIL,
          nthreads: 2,
        },
      ],
    };
    const text = statusText(st);
    expect(text).not.toMatch(RAW);
    expect(text).toContain(`died: ${SHOWN}\\x0amore`);
  });
  it('the dashboard store keeps escaped text only: log pane, host reasons, messages', () => {
    const store = new DashboardStore(`t${EVIL}`, () => 0);
    store.apply({ kind: 'process-line', host: 'n1', name: 'n1-0', stream: 'stdout', line: EVIL });
    store.apply({ kind: 'host-state', host: 'n1', state: 'failed', reason: EVIL });
    store.apply({ kind: 'notice', level: 'error', message: EVIL });
    store.dispatch({ kind: 'message', text: EVIL, level: 'warning' });
    const m = store.model;
    expect(m.logs.window(10, () => true, null).map((l) => l.text)).toContain(SHOWN);
    expect(
      JSON.stringify({ name: m.name, hosts: m.hosts, message: m.message, logs: m.logs.window(10, () => true, null) }),
    ).not.toMatch(/\\u001b|\\u0007|\x9b/);
    expect(m.hosts[0]?.reason).toBe(SHOWN);
    expect(m.message?.text).toBe(SHOWN);
  });
});

describe('sshcluster logs', () => {
  let ctx: TestContext | undefined;
  afterEach(() => ctx?.cleanup());

  it('prints recorded lines escaped', async () => {
    ctx = testContext();
    const dir = path.join(ctx.stateHome, 'sshcluster', 't');
    const run = newRunId(new Date());
    fs.mkdirSync(path.join(dir, 'logs', run), { recursive: true, mode: 0o700 });
    const state: ClusterRecord = {
      version: 1,
      name: 't',
      clusterId: 'id-1',
      spec: testSpec({ workers: ['n1'] }),
      controller: null,
      schedulerAddress: 'tcp://n0:8786',
      dashboardUrl: 'http://n0:8787/status',
      processes: [{ name: 'n1-0', host: 'n1', role: 'worker' }],
      desiredWorkers: 1,
      updatedAt: '',
      runId: run,
    };
    await writeState(path.join(dir, 'state.json'), state);
    fs.writeFileSync(path.join(dir, 'logs', run, 'n1-0.log'), `before\n${EVIL}\n`, { mode: 0o600 });
    expect(await runLogs(ctx, { name: 't', follow: false, tail: 10 })).toBe(0);
    expect(ctx.out()).not.toMatch(RAW);
    expect(ctx.out()).toBe(`n1-0 │ before\nn1-0 │ ${SHOWN}\n`);
  });
});
