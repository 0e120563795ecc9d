// The dashboard at 80 columns (and 50x12): every sentence we write is whole, log lines
// wrap instead of losing their message, hosts out of view are counted; how a client
// connects (c); no dashboard URL before our forward holds it.
import { render } from 'ink-testing-library';
import { createElement } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { App, type AppProps } from '../../../src/ui/App.js';
import { KEY_TABLE } from '../../../src/ui/hooks/key-table.js';
import { DashboardStore } from '../../../src/ui/store.js';
import { fakeActions, snapshot, T0, upStore, fakeTimers, press as pressKey } from './fixture.js';

const NOW = T0 + 65_000;
let unmount: (() => void) | undefined;
// The frame timers run on a fake clock: a key's frame in no real time.
beforeEach(() => fakeTimers());
afterEach(() => {
  unmount?.();
  vi.useRealTimers();
});

function show(p: Partial<AppProps> & Pick<AppProps, 'store'>, size = { width: 80, height: 24 }) {
  const { actions } = fakeActions(p.actions?.mode);
  const r = render(createElement(App, { actions, size, now: NOW, pollMs: 0, color: false, ...p }));
  unmount = r.unmount;
  const frame = () => (r.lastFrame() ?? '').replace(/[ \t]+$/gm, '');
  const press = (k: string) => pressKey(r, k);
  return { frame, press };
}

/** The screen as running text: borders and the log pane's bars gone, rows joined by one space. */
const prose = (s: string) => s.replace(/[│╭╮╰╯─]/g, ' ').replace(/\s+/g, ' ');
const widest = (s: string) => Math.max(...s.split('\n').map((l) => [...l].length));

const LONG_DASK =
  '2026-11-24 21:57:40,177 - distributed.scheduler - INFO - Register worker addr: tls://10.213.156.11:40317 name: 10.213.156.11-0 memory: 11.77 GiB threads: 2';
const NOTICE = 'the dashboard port was taken; the scheduler serves it on 8788 (the forward on this machine follows it)';

describe('at 80 columns', () => {
  it("wraps log lines: a Dask line's message and our own notice are whole, Dask's logger prefix shortened to its level", () => {
    const s = upStore();
    s.apply({ kind: 'process-line', host: 'node0', name: 'scheduler', stream: 'stderr', line: LONG_DASK });
    s.apply({ kind: 'notice', level: 'info', message: NOTICE });
    const { frame } = show({ store: s });
    expect(widest(frame())).toBeLessThanOrEqual(80);
    expect(frame()).toContain('node0/scheduler │ INFO Register worker');
    expect(frame()).not.toContain('distributed.scheduler - INFO -');
    expect(prose(frame())).toContain(prose(LONG_DASK.replace(/^.* - INFO - /, 'INFO ')));
    expect(prose(frame())).toContain(`sshcluster ${NOTICE}`);
  });

  it('shows the quit dialog whole', async () => {
    const { frame, press } = show({ store: upStore() });
    await press('q');
    expect(widest(frame())).toBeLessThanOrEqual(80);
    const text = prose(frame());
    expect(text).toContain("Quit: this terminal is the cluster's controller.");
    expect(text).toContain('t tear the cluster down and quit c / esc cancel, keep watching');
    expect(text).toContain(
      'To leave a cluster running without a terminal: sshcluster up --detach, then sshcluster attach (q there detaches).',
    );
  });

  it("shows every key's help whole, each on its line, and the mode's note", async () => {
    const { frame, press } = show({ store: upStore() });
    await press('?');
    const lines = frame().split('\n');
    for (const k of KEY_TABLE)
      expect(
        lines.some((l) => l.trim().startsWith(k.keys) && l.trimEnd().endsWith(k.help)),
        k.help,
      ).toBe(true);
    expect(frame()).toContain("This terminal is the cluster's controller: quitting it stops the cluster.");
    expect(frame()).not.toContain('…');
  });

  it('wraps a reply in the footer rather than cut it', () => {
    const s = upStore();
    const reply = 'scale: 2 of 5 workers run; the hosts have room for 2 (max_workers): raise max_workers or add hosts';
    s.apply({ kind: 'notice', level: 'error', message: reply });
    const { frame } = show({ store: s });
    const rows = frame().split('\n');
    expect(rows.length).toBeLessThanOrEqual(23);
    expect(prose(rows.slice(-2).join('\n'))).toContain(reply);
  });

  it('c shows how to connect: the eval line for this cluster', async () => {
    const { frame, press } = show({ store: upStore() });
    expect(frame()).toContain('c connect');
    await press('c');
    expect(frame()).toContain('eval "$(sshcluster env --name lab)"');
    expect(widest(frame())).toBeLessThanOrEqual(80);
    expect(frame().replace(/\d+m\d\ds|\d+s\b|(?<=up )\d+m\b/g, '<t>')).toMatchSnapshot();
    await press('\u001B');
    expect(frame()).not.toContain('sshcluster env');
  });
});

describe('at 50x12', () => {
  it('says how many hosts the table leaves out, and keeps the selected one in view', async () => {
    const s = upStore();
    const st = snapshot();
    s.setStatus({
      ...st,
      hosts: [
        ...st.hosts,
        ...['node3', 'node4', 'node5'].map((name) => ({
          name,
          roles: ['worker' as const],
          state: 'up' as const,
          lastError: null,
          workers: 0,
        })),
      ],
    });
    const { frame, press } = show({ store: s }, { width: 50, height: 12 });
    expect(widest(frame())).toBeLessThanOrEqual(50);
    const more = /\+(\d+) more/.exec(frame());
    expect(more).not.toBeNull();
    const listed = frame()
      .split('\n')
      .filter((l) => /^[ ▸] node\d/.test(l)).length;
    expect(listed + Number(more![1])).toBe(6);
    for (let i = 0; i < 5; i++) await press('\u001B[B');
    expect(frame()).toMatch(/▸ node5/);
  });
});

describe('the dashboard URL', () => {
  it('is not shown during start-up (the port may be another cluster’s), only once cluster-up says our forward holds it', () => {
    const s = new DashboardStore('lab', () => T0);
    s.setStatus(snapshot({ dashboardUrl: 'http://127.0.0.1:8787/status' }));
    expect(s.model.dashboardUrl).toBe('');
    const { frame } = show({ store: s }, { width: 100, height: 24 });
    expect(frame()).toContain('dashboard once up');
    expect(frame()).not.toContain('127.0.0.1:8787');
    unmount?.();
    s.apply({
      kind: 'cluster-up',
      name: 'lab',
      schedulerAddress: 'tcp://10.0.0.1:8786',
      dashboardUrl: 'http://127.0.0.1:41234/status',
      workers: [],
      failedHosts: [],
    });
    s.setStatus(snapshot({ dashboardUrl: 'http://127.0.0.1:41234/status' }));
    expect(show({ store: s }, { width: 100, height: 24 }).frame()).toContain('dashboard http://127.0.0.1:41234/status');
  });
});

describe('the events view at 80 columns', () => {
  it('wraps an event under its time rather than cut it', async () => {
    const s = upStore();
    const text =
      'Worker process 42 was killed by signal 9; its nanny restarted it (1 time(s) so far); the task running on it was node1-0-sum-8a4f2c';
    s.setStatus({
      ...snapshot(),
      events: [{ time: '2026-11-24T12:00:01.000Z', level: 'warning', subject: 'node1-0', text }],
    });
    const { frame, press } = show({ store: s });
    await press('e');
    expect(widest(frame())).toBeLessThanOrEqual(80);
    expect(frame()).toContain('12:00:01 node1-0: Worker process 42');
    expect(prose(frame())).toContain(`node1-0: ${text}`);
  });
});
