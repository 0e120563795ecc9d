// The controller's event log: what status events[] and the dashboard's events view show.
import { describe, expect, it } from 'vitest';
import { EVENT_LOG_SIZE, EventLog } from '../../../../src/app/controller/event-log.js';

// Real lines carry Dask's timestamp (both 2022.12 and 2024.12).
const line = (name: string, text: string) => ({
  kind: 'process-line' as const,
  host: 'n1',
  name,
  stream: 'stderr' as const,
  line: `2026-11-24 12:00:00,000 - ${text}`,
});

describe('EventLog', () => {
  it("counts the nanny's restarts of a worker process, with the death's reason, not a stop of ours", () => {
    const log = new EventLog(() => Date.UTC(2026, 10, 24, 12, 0, 0));
    // As Dask 2022.12 and 2024.12 log it when a task kills the worker process (os._exit / SIGKILL).
    log.take(line('n1-0', 'distributed.nanny - INFO - Worker process 4242 was killed by signal 9'));
    log.take(line('n1-0', 'distributed.nanny - WARNING - Restarting worker'));
    log.take(line('n1-0', 'distributed.nanny - INFO - Worker process 4300 exited with status 1'));
    log.take(line('n1-0', 'distributed.nanny - WARNING - Restarting worker'));
    // Our stop: the process dies, the nanny closes (no restart).
    log.take(line('n1-1', 'distributed.nanny - INFO - Worker process 4400 was killed by signal 15'));
    log.take(line('n1-1', "distributed.nanny - INFO - Closing Nanny at 'tcp://10.0.0.2:4000'. Reason: nanny-close"));
    expect(log.nannyRestarts).toEqual(new Map([['n1-0', 2]]));
    expect(log.recent().map((e) => `${e.subject}: ${e.text}`)).toEqual([
      'n1-0: Worker process 4242 was killed by signal 9; its nanny restarted it (1 time(s) so far; tasks that keep killing workers end in KilledWorker)',
      'n1-0: Worker process 4300 exited with status 1; its nanny restarted it (2 time(s) so far; tasks that keep killing workers end in KilledWorker)',
    ]);
    expect(log.recent()[0]!.time).toBe('2026-11-24T12:00:00.000Z');
  });

  // Found by the h43trial trial: a client's restart() read as two worker deaths ("its
  // worker process died; its nanny restarted it … end in KilledWorker").
  it('says a restart a client asked for (Client.restart) as such, and counts no death', () => {
    const log = new EventLog(() => 0);
    // Dask 2022.12, as captured:
    log.take(line('n1-0', 'distributed.nanny - INFO - Nanny asking worker to close. Reason: scheduler-restart'));
    log.take(
      line('n1-0', 'distributed.worker - INFO - Stopping worker at tcp://127.0.0.1:40305. Reason: scheduler-restart'),
    );
    log.take(line('n1-0', 'distributed.nanny - INFO - Worker closed'));
    log.take(line('n1-0', 'distributed.nanny - WARNING - Restarting worker'));
    // Dask 2024.12, as captured:
    const why = 'client-restart-1796200716.8391762';
    log.take(line('n1-1', `distributed.nanny - INFO - Nanny asking worker to close. Reason: ${why}`));
    log.take(line('n1-1', `distributed.worker - INFO - Stopping worker at tcp://127.0.0.1:45417. Reason: ${why}`));
    log.take(line('n1-1', 'distributed.nanny - INFO - Worker closed'));
    log.take(line('n1-1', 'distributed.nanny - WARNING - Restarting worker'));
    // A death after it is one again.
    log.take(line('n1-1', 'distributed.nanny - INFO - Worker process 4242 was killed by signal 9'));
    log.take(line('n1-1', 'distributed.nanny - WARNING - Restarting worker'));
    expect(log.nannyRestarts).toEqual(new Map([['n1-1', 1]]));
    expect(log.recent().map((e) => [e.level, `${e.subject}: ${e.text}`])).toEqual([
      ['info', 'n1-0: restarted, as a client asked (Client.restart)'],
      ['info', 'n1-1: restarted, as a client asked (Client.restart)'],
      [
        'warning',
        'n1-1: Worker process 4242 was killed by signal 9; its nanny restarted it (1 time(s) so far; tasks that keep killing workers end in KilledWorker)',
      ],
    ]);
  });

  it('says a host lost and back, an unexpected exit, a process lost with its connection and notices; not start-up chatter', () => {
    const log = new EventLog(() => 0);
    log.take({ kind: 'host-state', host: 'n1', state: 'connecting' });
    log.take({ kind: 'host-state', host: 'n1', state: 'running' });
    log.take({ kind: 'host-state', host: 'n1', state: 'unreachable', reason: 'connection reset' });
    log.take({ kind: 'host-state', host: 'n1', state: 'running' });
    log.take({ kind: 'process-exit', host: 'n1', name: 'n1-0', code: null, signal: 'SIGKILL', expected: false });
    log.take({ kind: 'process-exit', host: 'n1', name: 'n1-1', code: null, signal: null, expected: false });
    log.take({ kind: 'notice', level: 'warning', message: 'n1-0 on n1 exited; restart 1 in 1s' });
    log.take({ kind: 'adaptive-decision', decision: 'up', target: 3, current: 1, reason: 'start 2: target 3 > 1' });
    expect(log.recent().map((e) => [e.level, `${e.subject}: ${e.text}`])).toEqual([
      ['error', 'n1: unreachable: connection reset'],
      ['info', 'n1: reconnected'],
      ['warning', 'n1-0: exited unexpectedly (signal SIGKILL)'],
      ['warning', 'n1-1: lost with the connection to its host (no exit status)'],
      ['warning', 'sshcluster: n1-0 on n1 exited; restart 1 in 1s'],
      ['info', 'adaptive: up 1 → 3 workers: start 2: target 3 > 1'],
    ]);
  });

  it(`keeps the last ${EVENT_LOG_SIZE}`, () => {
    const log = new EventLog(() => 0);
    for (let i = 0; i < EVENT_LOG_SIZE + 20; i++) log.take({ kind: 'notice', level: 'info', message: `n${i}` });
    expect(log.recent(EVENT_LOG_SIZE)).toHaveLength(EVENT_LOG_SIZE);
    expect(log.recent(1)[0]!.text).toBe(`n${EVENT_LOG_SIZE + 19}`);
  });
});
