// The dashboard's store: events and status snapshots → view model, keys → selection,
// scrolling and filter; the log ring stays bounded.
import { describe, expect, it } from 'vitest';
import { LogRing, levelOf } from '../../../src/ui/state/log-ring.js';
import { logMatcher, selectedWorker } from '../../../src/ui/state/model.js';
import { DashboardStore } from '../../../src/ui/store.js';
import { snapshot, T0, upStore } from './fixture.js';

const line = (host: string, name: string, text: string) => ({
  kind: 'process-line' as const,
  host,
  name,
  stream: 'stderr' as const,
  line: text,
});

describe('log ring', () => {
  it('keeps the newest lines only, each cut to a bounded length', () => {
    const r = new LogRing(5_000);
    for (let i = 0; i < 12_000; i++) r.push('h', 'w', `line ${i} ` + 'x'.repeat(i === 11_999 ? 10_000 : 0));
    expect(r.size).toBe(5_000);
    expect(r.oldest).toBe(7_000);
    expect(r.at(6_999)).toBeUndefined();
    expect(r.at(7_000)?.text).toBe('line 7000 ');
    expect(r.at(11_999)!.text.length).toBe(500);
  });
  it('gives a window of matching lines ending at an anchor', () => {
    const r = new LogRing(10);
    for (let i = 0; i < 10; i++) r.push(i % 2 ? 'a' : 'b', 'w', String(i));
    const onA = (l: { host: string }) => l.host === 'a';
    expect(r.window(3, onA, null).map((l) => l.text)).toEqual(['5', '7', '9']);
    expect(r.window(2, onA, 6).map((l) => l.text)).toEqual(['3', '5']);
    expect(r.step(9, -2, onA)).toBe(5);
    expect(r.step(1, -5, onA)).toBe(1);
  });
  it('classifies WARNING and ERROR lines', () => {
    expect(levelOf('distributed.worker - WARNING - x')).toBe('warning');
    expect(levelOf('distributed.core - ERROR - y')).toBe('error');
    expect(levelOf('Traceback (most recent call last):')).toBe('error');
    expect(levelOf('distributed.scheduler - INFO - ok')).toBe('info');
  });
});

describe('dashboard store', () => {
  it('follows each host through start-up, with the time each step began', () => {
    let now = T0;
    const s = new DashboardStore('lab', () => now);
    s.apply({ kind: 'host-state', host: 'n0', state: 'connecting' });
    s.apply({ kind: 'host-state', host: 'n1', state: 'connecting' });
    now += 700;
    s.apply({ kind: 'host-state', host: 'n0', state: 'starting' });
    s.apply({ kind: 'host-state', host: 'n1', state: 'failed', reason: 'auth failed' });
    now += 900;
    s.apply({ kind: 'host-state', host: 'n0', state: 'running' });
    expect(s.model.phase).toBe('starting');
    expect(s.model.hosts.map((h) => [h.name, h.step, h.stepSince - T0, h.reason])).toEqual([
      ['n0', 'registered', 1_600, null],
      ['n1', 'failed', 700, 'auth failed'],
    ]);
  });
  it('takes hosts, workers, metrics and adaptive from a status snapshot, and phases from events', () => {
    const s = upStore();
    expect(s.model.phase).toBe('up');
    expect(s.model.hosts.map((h) => [h.name, h.state, h.step])).toEqual([
      ['node0', 'up', 'registered'],
      ['node1', 'up', 'registered'],
      ['node2', 'unreachable', 'connecting'],
    ]);
    expect(s.model.adaptive?.target).toBe(3);
    s.apply({ kind: 'teardown-started', reason: 'q' });
    expect(s.model.phase).toBe('stopping');
    s.apply({ kind: 'teardown-done', forced: [], leftover: [] });
    expect(s.model.phase).toBe('stopped');
  });
  it('filters logs by host or worker name', () => {
    const s = upStore();
    s.dispatch({ kind: 'filter-start' });
    for (const ch of 'node1-1') s.dispatch({ kind: 'filter-input', text: ch });
    s.dispatch({ kind: 'filter-done' });
    const m = s.model;
    expect(m.logs.window(10, logMatcher(m), null).map((l) => l.source)).toEqual(['node1-1']);
    s.dispatch({ kind: 'filter-cancel' });
    expect(s.model.filter).toBe('');
  });
  it('w shows WARNING and worse, then ERROR only, then everything again', () => {
    const s = upStore();
    const shown = () => s.model.logs.window(10, logMatcher(s.model), null).map((l) => l.text);
    expect(shown()).toContain('distributed.scheduler - INFO - Register worker');
    s.dispatch({ kind: 'level' });
    expect(shown()).toEqual([
      'distributed.worker - WARNING - Unmanaged memory use is high',
      'distributed.worker - ERROR - Compute Failed',
    ]);
    s.dispatch({ kind: 'level' });
    expect(shown()).toEqual(['distributed.worker - ERROR - Compute Failed']);
    s.dispatch({ kind: 'level' });
    expect(s.model.minLevel).toBe('info');
  });
  it('a pinned view knows where it is among the lines shown', () => {
    const s = new DashboardStore('lab');
    for (let i = 0; i < 100; i++) s.apply(line('h', 'w', i % 2 ? `odd ${i}` : `even ${i}`));
    s.dispatch({ kind: 'focus-next' });
    s.dispatch({ kind: 'move', delta: -10 });
    expect(s.model.logs.position(() => true, s.model.anchor)).toEqual({ at: 90, total: 100 });
    expect(s.model.logs.position((l) => l.text.startsWith('odd'), s.model.anchor)).toEqual({ at: 45, total: 50 });
  });
  it('scrolling up pins the view while lines keep coming; back down to the newest follows again', () => {
    const s = new DashboardStore('lab');
    for (let i = 0; i < 100; i++) s.apply(line('h', 'w', `l${i}`));
    s.dispatch({ kind: 'focus-next' });
    s.dispatch({ kind: 'move', delta: -10 });
    expect(s.model.follow).toBe(false);
    const pinned = () => s.model.logs.window(2, () => true, s.model.anchor).map((l) => l.text);
    expect(pinned()).toEqual(['l88', 'l89']);
    for (let i = 100; i < 200; i++) s.apply(line('h', 'w', `l${i}`));
    expect(pinned()).toEqual(['l88', 'l89']);
    s.dispatch({ kind: 'move', delta: 1_000 });
    expect(s.model.follow).toBe(true);
  });
  it('enter on a host shows its workers and only its logs; arrows select a worker', () => {
    const s = upStore();
    s.dispatch({ kind: 'move', delta: 1 });
    s.dispatch({ kind: 'enter' });
    s.dispatch({ kind: 'move', delta: 1 });
    expect(selectedWorker(s.model)?.name).toBe('node1-1');
    const m = s.model;
    expect(new Set(m.logs.window(10, logMatcher(m), null).map((l) => l.host))).toEqual(new Set(['node1']));
    s.dispatch({ kind: 'back' });
    expect(s.model.detail).toBe(false);
  });
  it('keeps the selection inside the host list when a snapshot has fewer hosts', () => {
    const s = upStore();
    s.dispatch({ kind: 'move', delta: 5 });
    expect(s.model.selectedHost).toBe(2);
    s.setStatus(snapshot({ hosts: snapshot().hosts.slice(0, 1) }));
    expect(s.model.hosts.length).toBe(3); // hosts named by events stay listed
  });
});
