// The dashboard with 1,000 hosts (4,000 workers) at 80x24 and 200x50: the host table
// shows a window that fits, counts the rest (+N more), pages with PgDn/PgUp (keys the
// help lists), and sorting by a figure keeps it usable.
import { render } from 'ink-testing-library';
import { createElement } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { App } from '../../../src/ui/App.js';
import type { StatusJson, WorkerStatus } from '../../../src/control/status-document.js';
import { sortedHosts } from '../../../src/ui/state/model.js';
import { DashboardStore } from '../../../src/ui/store.js';
import { clusterUpStore, fakeActions, snapshot, T0, fakeTimers, press as pressKey } from './fixture.js';

const NOW = T0 + 65_000;
let unmount: (() => void) | undefined;
// The frame timers run on a fake clock: a key's frame in no real time.
beforeEach(() => fakeTimers());
afterEach(() => {
  unmount?.();
  vi.useRealTimers();
});

function thousand(): StatusJson {
  const st = snapshot();
  const w0 = st.workers[0]!;
  const hosts: StatusJson['hosts'] = [{ ...st.hosts[0]! }];
  const workers: WorkerStatus[] = [];
  for (let i = 1; i < 1000; i++) {
    const name = `node${String(i).padStart(4, '0')}`;
    hosts.push({ name, roles: ['worker'], state: 'up', lastError: null, workers: 4 });
    for (let k = 0; k < 4; k++) workers.push({ ...w0, name: `${name}-${k}`, host: name, cpu: (i * 7 + k) % 100 });
  }
  return { ...st, hosts, workers, desiredWorkers: workers.length };
}

function show(size: { width: number; height: number }) {
  const s = fresh();
  const { actions } = fakeActions();
  const r = render(createElement(App, { store: s, actions, size, now: NOW, pollMs: 0, color: false }));
  unmount = r.unmount;
  const frame = () => (r.lastFrame() ?? '').replace(/[ \t]+$/gm, '');
  const press = (k: string) => pressKey(r, k);
  return { frame, press, store: s };
}

const rowsOf = (f: string) => f.split('\n').filter((l) => /^[ ▸] node\d/.test(l));
const selected = (f: string) => /▸ (node\d+)/.exec(f)?.[1];
const HELP_PAGE = /PgUp PgDn\s+a page at a time/;

describe.each([
  { width: 80, height: 24 },
  { width: 200, height: 50 },
])('1,000 hosts at $width x $height', (size) => {
  it('shows the rows that fit, says how many more there are, and pages with PgDn and PgUp', async () => {
    const { frame, press } = show(size);
    const f = frame();
    expect(f.split('\n').length).toBeLessThanOrEqual(size.height);
    const more = /\+(\d+) more/.exec(f);
    expect(more).not.toBeNull();
    const listed = rowsOf(f).length;
    expect(listed).toBeGreaterThan(0);
    expect(listed + Number(more![1])).toBe(1000);
    expect(selected(f)).toBe('node0');
    await press('?');
    expect(frame()).toMatch(HELP_PAGE);
    await press('?');
    const at = () => Number(selected(frame())!.slice(4));
    await press('\u001B[6~'); // PgDn
    const page = at();
    expect(page).toBeGreaterThan(1);
    expect(frame().split('\n').length).toBeLessThanOrEqual(size.height);
    await press('\u001B[6~');
    expect(at()).toBe(2 * page);
    expect(/\+(\d+) more/.test(frame())).toBe(true);
    await press('\u001B[5~'); // PgUp
    expect(at()).toBe(page);
  });
});

describe('1,000 hosts sorted by CPU', () => {
  it('orders the hosts by their workers’ CPU, largest first, ties in host-file order', () => {
    const m = { ...fresh().model, sortBy: 'cpu' as const };
    const got = sortedHosts(m).map((h) => h.name);
    const cpu = (h: string) => m.workers.filter((w) => w.host === h).reduce((s, w) => s + (w.cpu ?? 0), 0);
    const want = [...m.hosts].map((h) => h.name).sort((a, b) => cpu(b) - cpu(a));
    expect(got).toEqual(want);
  });

  it('reads each worker once or so per sort, not once per comparison (was ~40 million reads a frame)', () => {
    const base = fresh().model;
    let reads = 0;
    const workers = new Proxy(base.workers, {
      get: (t, k, r) => {
        if (typeof k === 'string' && /^\d+$/.test(k)) reads++;
        return Reflect.get(t, k, r) as unknown;
      },
    });
    sortedHosts({ ...base, workers, sortBy: 'cpu' });
    expect(reads).toBeLessThanOrEqual(2 * base.workers.length);
  });
});

/** A dashboard that has seen only the status of 1,000 hosts. */
function fresh(): DashboardStore {
  return clusterUpStore(() => NOW, thousand(), []);
}
