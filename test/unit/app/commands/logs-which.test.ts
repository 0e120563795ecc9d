// `logs` with no --name and no cluster running: the one cluster whose runs are recorded
// is read; with several, the user names one (exit 2) from the list given.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runLogs } from '../../../../src/app/commands/cluster-clients.js';
import { UsageError } from '../../../../src/errors.js';
import { testContext, type TestContext } from '../context-fixture.js';

let ctx: TestContext;
afterEach(() => ctx.cleanup());

function recorded(name: string, line: string): void {
  const run = path.join(ctx.env.XDG_STATE_HOME!, 'sshcluster', name, 'logs', '20260101T000000Z-abcdef');
  fs.mkdirSync(run, { recursive: true });
  fs.writeFileSync(path.join(run, 'scheduler.log'), `${line}\n`);
}

describe('logs without --name, no cluster running', () => {
  it('reads the only cluster with recorded runs', async () => {
    ctx = testContext();
    recorded('lab', 'the lab line');
    expect(await runLogs(ctx, { follow: false, tail: 10 })).toBe(0);
    expect(ctx.out()).toContain('scheduler │ the lab line');
  });

  it('with several recorded, asks for --name and lists them (exit 2)', async () => {
    ctx = testContext();
    recorded('lab', 'a');
    recorded('gpu', 'b');
    const err = await runLogs(ctx, { follow: false, tail: 10 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toBe('logs: no cluster is running, and 2 have recorded logs: gpu, lab');
    expect((err as UsageError).hint).toBe('name one: sshcluster logs --name NAME');
  });
});
