// Dashboard components with ink-testing-library: a fake stdout, fixed size and clock,
// and snapshots with spinner frames and durations normalized.
import { render } from 'ink-testing-library';
import { createElement } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { App, type AppProps } from '../../../src/ui/App.js';
import { DashboardStore } from '../../../src/ui/store.js';
import { fakeActions, T0, upStore } from './fixture.js';

const NOW = T0 + 65_000;
const tick = () => new Promise((r) => setTimeout(r, 30));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Waits for the frame a key press causes (event, not time: a loaded machine renders late). */
async function nextFrame(r: { frames: string[] }, before: number): Promise<void> {
  for (const until = Date.now() + 5_000; r.frames.length === before && Date.now() < until; ) await sleep(5);
  await sleep(5);
}
let unmount: (() => void) | undefined;
afterEach(() => unmount?.());

function show(p: Partial<AppProps> & Pick<AppProps, 'store'>, size = { width: 100, height: 24 }) {
  const { actions, calls } = fakeActions(p.actions?.mode);
  const r = render(createElement(App, { actions, size, now: NOW, pollMs: 0, color: false, ...p }));
  unmount = r.unmount;
  const frame = () => normalize(r.lastFrame() ?? '');
  return { r, calls, frame, press: async (k: string) => { const before = r.frames.length; r.stdin.write(k); await nextFrame(r, before); } };
}

/** Spinner frames and elapsed times change from run to run; trailing blanks do not matter. */
function normalize(s: string): string {
  return s.replace(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/g, '*').replace(/\b\d+(m\d\ds|s|h\d\dm)\b/g, '<t>').replace(/[ \t]+$/gm, '').replace(/\n+$/, '');
}

describe('dashboard', () => {
  it('shows the header, the hosts table with metrics and reasons inline, and the merged logs', () => {
    const { frame } = show({ store: upStore() });
    expect(frame()).toMatchSnapshot();
  });

  it('shows each host\'s start-up step with a spinner and its elapsed time', () => {
    const s = new DashboardStore('lab', () => T0);
    s.apply({ kind: 'host-state', host: 'node0', state: 'starting' });
    s.apply({ kind: 'host-state', host: 'node1', state: 'connecting' });
    s.apply({ kind: 'host-state', host: 'node2', state: 'failed', reason: 'python3: not found' });
    const { frame } = show({ store: s });
    expect(frame()).toMatchSnapshot();
    expect(frame()).toMatch(/\* node0\s+starting\s+<t>/);
  });

  it('answers keys: + scales up by one, - down, a toggles adaptive', async () => {
    const { press, calls } = show({ store: upStore() });
    await press('+');
    await press('-');
    await press('a');
    expect(calls).toEqual(['scale 4', 'scale 2', 'adaptive false']);
  });

  it('enter on a host lists its workers; r restarts the selected one', async () => {
    const { press, calls, frame } = show({ store: upStore() });
    await press('\u001B[B'); // down: node1
    await press('\r');
    await press('\u001B[B');
    expect(frame()).toMatchSnapshot();
    await press('r');
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
    const r = render(createElement(App, { store: upStore(), actions, size: { width: 100, height: 24 }, now: NOW, pollMs: 0, color: false }));
    unmount = r.unmount;
    r.stdin.write('q');
    await tick();
    expect(calls).toEqual(['detach']);
  });

  it('/ filters the log pane by worker; l shows the logs full screen; ? shows help', async () => {
    const { press, frame } = show({ store: upStore() });
    await press('/');
    for (const ch of 'node1-0') await press(ch);
    await press('\r');
    expect(frame()).toContain('filter /node1-0');
    expect(frame()).toContain('Unmanaged memory');
    expect(frame()).not.toContain('Compute Failed');
    await press('l');
    expect(frame()).not.toContain('HOST');
    await press('?');
    expect(frame()).toMatchSnapshot();
  });

  it('renders cleanly in a small terminal and says so in a tiny one', () => {
    expect(show({ store: upStore() }, { width: 60, height: 14 }).frame().split('\n').every((l) => l.length <= 60)).toBe(true);
    unmount?.();
    expect(show({ store: upStore() }, { width: 30, height: 8 }).frame()).toContain('terminal too small (30x8)');
  });

  it('coalesces a burst of events into few frames', async () => {
    const s = upStore();
    const { r } = show({ store: s, fps: 10 });
    const before = r.frames.length;
    for (let i = 0; i < 5_000; i++) s.apply({ kind: 'process-line', host: 'node1', name: 'node1-0', stream: 'stdout', line: `line ${i}` });
    await new Promise((res) => setTimeout(res, 250));
    for (const until = Date.now() + 5_000; !r.lastFrame()?.includes('line 4999') && Date.now() < until; ) await sleep(10);
    expect(r.frames.length - before).toBeLessThanOrEqual(4);
    expect(r.lastFrame()).toContain('line 4999');
  });
});
