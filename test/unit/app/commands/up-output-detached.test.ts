// The background controller's log (its stdout) is for the controller's own events:
// process output has its own capped files, and copying it there made controller.log
// grow without bound under a flooding worker (issue 12, finding 1).
import { describe, expect, it } from 'vitest';
import type { AppContext } from '../../../../src/app/context.js';
import { upOutput } from '../../../../src/app/commands/up-output.js';
import { EventBus } from '../../../../src/events/types.js';

function ctxWriting(out: string[]): AppContext {
  const sink = { write: (t: string) => void out.push(t) };
  return { env: {}, stdout: sink, stderr: sink } as unknown as AppContext;
}

describe('upOutput in the detached controller', () => {
  it('writes events but not process output lines', () => {
    const written: string[] = [];
    const bus = new EventBus();
    upOutput(ctxWriting(written), bus, 'c', { json: false, detachedChild: true });
    bus.emit({ kind: 'process-line', host: 'h1', name: 'h1-0', stream: 'stdout', line: 'flood 00000001' });
    bus.emit({ kind: 'notice', level: 'warning', message: 'h1-0: 1.2 M lines of stdout dropped' });
    expect(written.join('')).toBe('warning: h1-0: 1.2 M lines of stdout dropped\n');
  });

  it('in the foreground without a terminal, process lines are still shown', () => {
    const written: string[] = [];
    const bus = new EventBus();
    upOutput(ctxWriting(written), bus, 'c', { json: false, tui: false, detachedChild: false });
    bus.emit({ kind: 'process-line', host: 'h1', name: 'h1-0', stream: 'stdout', line: 'hello' });
    expect(written.join('')).toBe('h1-0 │ hello\n');
  });
});
