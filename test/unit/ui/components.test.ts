// Dashboard components with ink-testing-library: a fake stdout, fixed size and clock,
// and snapshots with spinner frames and durations normalized.
import { render } from 'ink-testing-library';
import { createElement } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { App, type AppProps } from '../../../src/ui/App.js';
import { DashboardStore } from '../../../src/ui/store.js';
import { highlightParts } from '../../../src/ui/components/LogPane.js';
import { helpLines } from '../../../src/ui/components/HelpOverlay.js';
import { KEY_TABLE } from '../../../src/ui/hooks/key-table.js';
import { fakeActions, fakeTimers, press, snapshot, step, T0, upStore } from './fixture.js';

const NOW = T0 + 65_000;
let unmount: (() => void) | undefined;
// The frame timers run on a fake clock: a key's frame, a burst's, in no real time.
beforeEach(() => fakeTimers());
afterEach(() => {
  unmount?.();
  vi.useRealTimers();
});

function show(p: Partial<AppProps> & Pick<AppProps, 'store'>, size = { width: 100, height: 24 }) {
  const { actions, calls } = fakeActions(p.actions?.mode);
  const r = render(createElement(App, { actions, size, now: NOW, pollMs: 0, color: false, ...p }));
  unmount = r.unmount;
  const frame = () => normalize(r.lastFrame() ?? '');
  return {
    r,
    calls,
    frame,
    press: (k: string) => press(r, k),
  };
}

/** Spinner frames and elapsed times change from run to run; trailing blanks do not matter. */
function normalize(s: string): string {
  return s
    .replace(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/g, '*')
    .replace(/\b\d+(m\d\ds|s|h\d\dm|m)\b/g, '<t>')
    .replace(/[ \t]+$/gm, '')
    .replace(/\n+$/, '');
}

describe('dashboard', () => {
  it('shows the header, the hosts table with metrics and reasons inline, and the merged logs', () => {
    const { frame } = show({ store: upStore() });
    expect(frame()).toMatchSnapshot();
  });

  // helper-23's trial: a reply after the key hints was cut to its first words.
  it('shows a reply first in the footer, whole when it fits, the keys in the room it leaves', () => {
    const s = upStore();
    const reply = 'scale: 2 of 5 workers run; the hosts have room for 2 (max_workers): raise max_workers or add hosts';
    s.apply({ kind: 'notice', level: 'error', message: reply });
    const wide = show({ store: s }, { width: 160, height: 24 }).frame().split('\n').at(-1)!;
    expect(wide.startsWith(`${reply} `)).toBe(true);
    expect(wide).toContain('? help');
    unmount?.();
    // Narrower than the reply: it wraps (issue 34: cut, it lost its end), whole.
    const narrow = show({ store: s }, { width: 60, height: 24 }).frame().split('\n').slice(-2);
    expect(narrow.join(' ')).toMatch(new RegExp(`^${reply.replace(/[()]/g, '\\$&')}`));
    expect(narrow.every((l) => l.length <= 60)).toBe(true);
  });

  it("shows an up host's last error as earlier, not as a failure now; an unreachable host's as its state's reason", () => {
    const s = upStore();
    const st = snapshot();
    s.setStatus({
      ...st,
      hosts: st.hosts.map((h) => (h.name === 'node1' ? { ...h, lastError: 'stopped answering (keepalive)' } : h)),
    });
    const { frame } = show({ store: s }, { width: 160, height: 24 });
    expect(frame()).toMatch(/node1 .*up \(earlier: stopped answering \(keepalive\)\)/);
    expect(frame()).not.toContain('up: stopped answering');
    expect(frame()).toMatch(/node2 .*unreachable: connect ECONNREFUSED 10\.0\.0\.3:22/);
    // Connecting again after it failed: reconnecting, with why it had to.
    const again = upStore();
    again.setStatus({ ...st, hosts: st.hosts.map((h) => (h.name === 'node2' ? { ...h, state: 'connecting' } : h)) });
    expect(show({ store: again }, { width: 160, height: 24 }).frame()).toMatch(
      /node2 .*reconnecting: connect ECONNREFUSED 10\.0\.0\.3:22/,
    );
  });

  it("shows each host's start-up step with a spinner and its elapsed time", () => {
    const s = new DashboardStore('lab', () => T0);
    s.apply({ kind: 'host-state', host: 'node0', state: 'starting' });
    s.apply({ kind: 'host-state', host: 'node1', state: 'connecting' });
    s.apply({ kind: 'host-state', host: 'node2', state: 'failed', reason: 'python3: not found' });
    const { frame } = show({ store: s });
    expect(frame()).toMatchSnapshot();
    expect(frame()).toMatch(/\* node0\s+starting\s+<t>/);
  });

  it('answers keys: + scales up by one (presses add up), - asks first and lowers with each press, a toggles adaptive', async () => {
    const { press, calls, frame } = show({ store: upStore() });
    await press('+');
    await press('+');
    expect(calls).toEqual(['scale 4', 'scale 5']);
    await press('-');
    expect(frame()).toContain('Scale down to 4 worker(s) (from 5)?');
    await press('-');
    expect(frame()).toContain('Scale down to 3 worker(s) (from 5)?');
    await press('n');
    expect(frame()).not.toContain('Scale down');
    expect(calls).toEqual(['scale 4', 'scale 5']);
    await press('-');
    await press('y');
    await press('a');
    expect(calls).toEqual(['scale 4', 'scale 5', 'scale 4', 'adaptive false']);
  });

  it('+ pressed twice before the controller answers asks for two more, not the same count twice', async () => {
    const { actions, calls } = fakeActions();
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    const scale = actions.scale;
    const { press } = show({ store: upStore(), actions: { ...actions, scale: async (n) => (await held, scale(n)) } });
    await press('+');
    await press('+');
    release();
    await step(20);
    expect(calls).toEqual(['scale 4', 'scale 5']);
  });

  it('enter on a host lists its workers; r restarts the selected one', async () => {
    const { press, calls, frame } = show({ store: upStore() });
    await press('\u001B[B'); // down: node1
    await press('\r');
    await press('\u001B[B');
    expect(frame()).toMatchSnapshot();
    await press('r');
    expect(frame()).toContain('Restart node1-1?');
    expect(calls).toEqual([]);
    await press('y');
    expect(calls).toEqual(['restart node1-1']);
  });

  it('q in a foreground up asks first: tear down or cancel', async () => {
    const { press, calls, frame } = show({ store: upStore() });
    await press('q');
    expect(frame()).toMatchSnapshot();
    await press('c');
    expect(frame()).not.toContain('tear the cluster down');
    await press('q');
    await press('t');
    expect(calls).toEqual(['teardown']);
  });

  it('q when attached detaches at once', async () => {
    const { actions, calls } = fakeActions('attached');
    const r = render(
      createElement(App, {
        store: upStore(),
        actions,
        size: { width: 100, height: 24 },
        now: NOW,
        pollMs: 0,
        color: false,
      }),
    );
    unmount = r.unmount;
    r.stdin.write('q');
    await step(30);
    expect(calls).toEqual(['detach']);
  });

  it('Ctrl-C interrupts (as without the dashboard), not the c key: up stops, in a prompt too', async () => {
    // Found by the h40ssh trial: Ctrl-C in up's dashboard showed the connect line (the c
    // key's) and the cluster ran on; only q stopped it.
    const { r, calls } = show({ store: upStore() });
    r.stdin.write('\x03');
    await step(30);
    expect(calls).toEqual(['interrupt']);
    r.stdin.write('/');
    await step(30);
    r.stdin.write('\x03');
    await step(30);
    expect(calls).toEqual(['interrupt', 'interrupt']);
  });

  it('/ filters the log pane by worker; l shows the logs full screen; ? shows help', async () => {
    const { press, frame } = show({ store: upStore() });
    await press('/');
    for (const ch of 'node1-0') await press(ch);
    await press('\r');
    expect(frame()).toContain('filter /node1-0');
    expect(frame()).toContain('Unmanaged memory');
    expect(frame()).not.toContain('Compute Failed');
    await press('/');
    for (let i = 0; i < 'node1-0'.length; i++) await press('\u007F');
    for (const ch of 'unmanaged') await press(ch);
    await press('\r');
    // A word of the message finds the line too (highlighted in it: highlightParts).
    expect(frame()).toContain('Unmanaged memory');
    expect(frame()).not.toContain('Compute Failed');
    await press('l');
    expect(frame()).not.toContain('HOST');
    await press('?');
    expect(frame()).toMatchSnapshot();
  });

  it('takes a filter typed in one chunk with its Enter (a paste, tmux send-keys), and no control character', async () => {
    const { press, frame } = show({ store: upStore() });
    await press('/');
    await press('no\u0007de1-0\r');
    expect(frame()).toContain('filter /node1-0  (');
    expect(frame()).toContain('Unmanaged memory');
    expect(frame()).not.toContain('Compute Failed');
  });

  it('takes keys that arrive together (a busy dashboard, a paste) one by one: / and the filter and Enter in one chunk', async () => {
    const { press, frame } = show({ store: upStore() });
    await press('/unmanaged\r');
    expect(frame()).toContain('filter /unmanaged  (');
    expect(frame()).not.toContain('Compute Failed');
  });

  it('s sorts the hosts by CPU (busiest first), keeping the selection on its host; x shows a worker in detail', async () => {
    const { press, frame } = show({ store: upStore() }, { width: 140, height: 30 });
    const order = () =>
      frame()
        .split('\n')
        .filter((l) => /^[ ▸] node\d/.test(l))
        .map((l) => l.slice(2, 7));
    expect(order()).toEqual(['node0', 'node1', 'node2']);
    await press('s');
    expect(order()).toEqual(['node1', 'node0', 'node2']);
    expect(frame()).toContain('sorted by cpu, largest first');
    expect(frame()).toMatch(/▸ node0/);
    await press('\u001B[A'); // up: node1, now first
    await press('\r');
    await press('x');
    expect(frame()).toMatch(/node1-\d on node1 {2}\(x or esc closes\)/);
    expect(frame()).toMatch(/restarts\s+\d+ by sshcluster, 0 by its nanny/);
    await press('x');
    expect(frame()).not.toContain('x or esc closes');
  });

  it('e shows the events in place of the logs, and back', async () => {
    const store = upStore();
    store.setStatus(statusWithEvents());
    const { press, frame } = show({ store });
    await press('e');
    expect(frame()).toContain('Events (last 2; e: back to the logs)');
    expect(frame()).toMatch(/12:00:01 node1-0: Worker process 42 was killed by signal 9; its nanny restarted it/);
    expect(frame()).not.toContain('Compute Failed');
    await press('e');
    expect(frame()).toContain('Compute Failed');
  });

  it("shows the scheduler's work under the header: progress bar, tasks by state, clients, its load; the layout makes room for the line", async () => {
    const s = upStore();
    s.setStatus(
      snapshot({
        tasks: {
          byState: { processing: 12, queued: 40, memory: 108 },
          progress: { done: 108, total: 160, erred: 0 },
          clients: 1,
          schedulerCpu: 3,
          schedulerMemoryBytes: 120 * 2 ** 20,
        },
      }),
    );
    const { frame } = show({ store: s }, { width: 160, height: 24 });
    expect(frame()).toContain(
      'tasks ██████████░░░░░░ 108/160 done (67%) · 40 queued, 12 processing, 108 in memory · 1 client · scheduler 3% 120M',
    );
    expect(frame().split('\n').length).toBeLessThanOrEqual(23);
    expect(frame()).toMatch(/Logs \[follow\]/);
  });

  it('shows erred work as erred after its client left, with the prefix that killed workers, and makes room for the lines', async () => {
    const s = upStore();
    const prefixes = [
      { prefix: 'boom', done: 0, erred: 1, total: 1, killedWorkers: 4 },
      { prefix: 'ok', done: 3, erred: 0, total: 3, killedWorkers: 0 },
    ];
    s.setStatus(
      snapshot({
        tasks: {
          byState: {},
          progress: { done: 3, total: 4, erred: 1, killedWorkers: 4, prefixes },
          clients: 0,
          schedulerCpu: 3,
          schedulerMemoryBytes: 120 * 2 ** 20,
        },
      }),
    );
    const { frame } = show({ store: s }, { width: 160, height: 24 });
    expect(frame()).toContain('3/4 done (75%), 1 erred');
    expect(frame()).toContain('  boom: 0/1 done, 1 erred, killed 4 workers');
    expect(frame()).toContain('  ok: 3/3 done');
    expect(frame().split('\n').length).toBeLessThanOrEqual(23);
    expect(frame()).toMatch(/Logs \[follow\]/);
  });

  it('at 80 columns drops low-priority columns and keeps every header it shows whole', async () => {
    const { frame, press } = show({ store: upStore() }, { width: 80, height: 24 });
    const hostHeader = frame()
      .split('\n')
      .find((l) => l.includes('HOST'))!;
    expect(hostHeader.trim().split(/\s+/)).toEqual([
      'HOST',
      'WORKERS',
      'THREADS',
      'MEMORY',
      'CPU',
      'TASKS',
      'RESTARTS',
      'STATE',
    ]);
    expect(frame()).toMatch(/node2 .* unreachable/);
    await press('\u001B[B');
    await press('\r');
    const workerHeader = frame()
      .split('\n')
      .find((l) => l.includes('WORKER '))!;
    // Threads, pid and address go first; state, tasks, restarts and idle stay.
    expect(workerHeader.trim().split(/\s+/)).toEqual(['WORKER', 'STATE', 'MEMORY', 'CPU', 'TASKS', 'RESTARTS', 'IDLE']);
    expect(
      frame()
        .split('\n')
        .every((l) => l.length <= 80),
    ).toBe(true);
  });

  it('renders cleanly in a small terminal and says so in a tiny one', () => {
    expect(
      show({ store: upStore() }, { width: 60, height: 14 })
        .frame()
        .split('\n')
        .every((l) => l.length <= 60),
    ).toBe(true);
    unmount?.();
    expect(show({ store: upStore() }, { width: 30, height: 8 }).frame()).toContain('terminal too small (30x8)');
  });

  it('coalesces a burst of events into few frames', async () => {
    const s = upStore();
    const { r } = show({ store: s, fps: 10 });
    const before = r.frames.length;
    for (let i = 0; i < 5_000; i++)
      s.apply({ kind: 'process-line', host: 'node1', name: 'node1-0', stream: 'stdout', line: `line ${i}` });
    await step(250);
    for (let i = 0; i < 500 && !r.lastFrame()?.includes('line 4999'); i++) await step(10);
    expect(r.frames.length - before).toBeLessThanOrEqual(4);
    expect(r.lastFrame()).toContain('line 4999');
  });
});

describe('the help overlay', () => {
  it('wraps when everything fits, else gives each key one line, else says how many keys it left out', () => {
    const tall = helpLines(60, 100, 'note');
    expect(tall.length).toBeGreaterThan(KEY_TABLE.length + 1);
    expect(tall.every((l) => l.text.length <= 60)).toBe(true);
    expect(tall.at(-1)).toEqual({ text: 'note', dim: true });
    expect(helpLines(60, KEY_TABLE.length, 'note')).toHaveLength(KEY_TABLE.length);
    const short = helpLines(60, 10, 'note');
    expect(short).toHaveLength(10);
    expect(short.at(-1)!.text).toBe(`… ${KEY_TABLE.length - 9} more keys: a taller terminal shows them`);
  });
});

describe('log lines in the pane', () => {
  it("marks every occurrence of the filter's word, in any case", () => {
    expect(highlightParts('Unmanaged memory: unmanaged', 'unmanaged')).toEqual([
      { s: 'Unmanaged', hit: true },
      { s: ' memory: ', hit: false },
      { s: 'unmanaged', hit: true },
    ]);
    expect(highlightParts('no word here', '')).toEqual([{ s: 'no word here', hit: false }]);
  });

  it("show the message: Dask's timestamp, its logger's name and runs of spaces go", async () => {
    const { compact } = await import('../../../src/ui/components/LogPane.js');
    expect(
      compact('2026-11-24 21:57:40,177 - distributed.worker - INFO -         Registered to:      tcp://127.0.0.1:8786'),
    ).toBe('INFO Registered to: tcp://127.0.0.1:8786');
    // Dask's logger names go (the level stays); another logger's line keeps its name.
    expect(compact('distributed.worker.memory - WARNING - Unmanaged memory use is high')).toBe(
      'WARNING Unmanaged memory use is high',
    );
    expect(compact('tornado.application - ERROR - Uncaught exception')).toBe(
      'tornado.application - ERROR - Uncaught exception',
    );
  });
});

function statusWithEvents() {
  return {
    ...snapshot(),
    events: [
      {
        time: '2026-11-24T12:00:00.000Z',
        level: 'error' as const,
        subject: 'node2',
        text: 'unreachable: connect ECONNREFUSED',
      },
      {
        time: '2026-11-24T12:00:01.000Z',
        level: 'warning' as const,
        subject: 'node1-0',
        text: 'Worker process 42 was killed by signal 9; its nanny restarted it (1 time(s) so far)',
      },
    ],
  };
}
