// An idle dashboard draws when what it shows changes, and nothing more: its uptime each
// second for the first minute, then each minute; a status poll only when a figure it
// shows changed (at most once a second). It drew a frame every second for the uptime's
// seconds, and one for each poll whose numbers moved unseen (an idle time, a few KB of
// memory): ~3.2% of a core idle at 80x24 (bench/tui.ts --attach-idle).
import { render } from 'ink-testing-library';
import { createElement } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { App } from '../../../src/ui/App.js';
import { fakeActions, fakeTimers, snapshot, step, T0, upStore } from './fixture.js';
import type { DashboardActions } from '../../../src/ui/actions.js';
import type { StatusJson } from '../../../src/control/status-document.js';

afterEach(() => vi.useRealTimers());

function dashboard(status: () => StatusJson) {
  fakeTimers(T0 + 65_000);
  const store = upStore(() => Date.now());
  const actions: DashboardActions = { ...fakeActions('attached').actions, status: async () => status() };
  const r = render(
    createElement(App, { store, actions, size: { width: 80, height: 24 }, pollMs: 1_000, color: false }),
  );
  const uptime = () => /up (\S+)/.exec(r.lastFrame() ?? '')?.[1];
  return { r, uptime };
}

/** Frames drawn over `seconds` of fake clock, in 250 ms steps (a poll each second). */
async function framesOver(r: { frames: string[] }, seconds: number): Promise<number> {
  const before = r.frames.length;
  for (let i = 0; i < seconds * 4; i++) await step(250);
  return r.frames.length - before;
}

describe('an idle dashboard', () => {
  it('past its first minute draws only as its idle times pass a 10 s step and as the minute turns', async () => {
    let polls = 0;
    // What an idle cluster's polls bring: its idle time and a few KB of memory move.
    const { r, uptime } = dashboard(() => {
      polls++;
      const s = snapshot();
      return {
        ...s,
        uptimeS: 65 + polls,
        workers: s.workers.map((w) => ({ ...w, idleS: polls, memoryBytes: (w.memoryBytes ?? 0) + polls * 4096 })),
      };
    });
    await step(3_000); // the first polls and frames
    expect(uptime()).toBe('1m');
    const quiet = await framesOver(r, 50);
    console.log(`idle: ${quiet} frame(s) in 50 s of fake clock, ${polls} polls`);
    // The workers' idle time, shown to the second in a worker's detail, is compared by 10 s.
    expect(quiet).toBeLessThanOrEqual(5); // it drew 50
    expect(polls).toBeGreaterThanOrEqual(50);
    expect(await framesOver(r, 10)).toBeLessThanOrEqual(2); // 2m, and an idle step
    expect(uptime()).toBe('2m');
    r.unmount();
  });

  it('a figure that changes is drawn at each poll, at most once a second', async () => {
    let cpu = 0;
    const { r, uptime } = dashboard(() => {
      const s = snapshot();
      return { ...s, workers: s.workers.map((w) => ({ ...w, cpu: (cpu += 1) })) };
    });
    await step(3_000);
    expect(uptime()).toBe('1m');
    // Each poll moves a CPU figure: one frame a poll, not more.
    const frames = await framesOver(r, 10);
    expect(frames).toBeGreaterThanOrEqual(8);
    expect(frames).toBeLessThanOrEqual(10);
    r.unmount();
  });
});
