// An idle dashboard draws a frame a second (its uptime) and nothing more: no frame for a
// clock that shows nothing new, none for a status poll that brings nothing new.
import { render } from 'ink-testing-library';
import { createElement } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { App } from '../../../src/ui/App.js';
import { fakeActions, fakeTimers, step, T0, upStore } from './fixture.js';

afterEach(() => vi.useRealTimers());

describe('an idle dashboard', () => {
  it('draws once a second for its uptime, with status polls that bring nothing new drawing nothing', async () => {
    fakeTimers(T0 + 65_000);
    const store = upStore(() => Date.now());
    const { actions } = fakeActions('attached');
    const r = render(
      createElement(App, { store, actions, size: { width: 80, height: 24 }, pollMs: 1_000, color: false }),
    );
    await step(3_000); // the first polls and frames
    const before = r.frames.length;
    const uptime = () => /up (\S+)/.exec(r.lastFrame() ?? '')?.[1];
    expect(uptime()).toBe('1m08s');
    // 40 ticks of a 250 ms fake clock: 10 s, 10 status polls answered with the same snapshot.
    for (let i = 0; i < 40; i++) await step(250);
    const frames = r.frames.length - before;
    console.log(`idle: ${frames} frame(s) in 10 s of fake clock`);
    expect(uptime()).toBe('1m18s');
    expect(frames).toBeLessThanOrEqual(10);
    r.unmount();
  });
});
