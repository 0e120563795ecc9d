// An `up` that fails before any process printed a line (here: its only host refuses the
// connection) leaves nothing under the state dir: no empty run that `logs --name` would
// read as "recorded: none", no dir that makes the name look like a cluster's. A run
// that did record lines stays for `logs` (control-endpoint.test.ts).
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runLogs } from '../../../../src/app/commands/cluster-clients.js';
import { runUp } from '../../../../src/app/commands/up.js';
import type { ClusterSpec } from '../../../../src/config/spec.js';
import { stateRoot } from '../../../../src/control/paths.js';
import { ExpectedError } from '../../../../src/errors.js';
import { testHost } from '../../../unit/config/spec-fixture.js';
import { testContext, type TestContext } from '../../../unit/app/context-fixture.js';

let ctx: TestContext;
beforeEach(() => (ctx = testContext()));
afterEach(() => ctx.cleanup());

// Port 1 on loopback refuses at once: a host that does not answer.
const nowhere = {
  ...testHost('far0'),
  connect: { ...testHost('far0').connect, hostname: '127.0.0.1', port: 1, connectTimeoutMs: 2_000 },
};
const spec: ClusterSpec = {
  name: 'far',
  local: false,
  schedulerHost: nowhere,
  schedulerOptions: { port: 8786, dashboardAddress: ':8787' },
  workerHosts: [nowhere],
  security: { kind: 'none' },
};

async function failedUp(given = spec): Promise<ExpectedError> {
  const err = await runUp(ctx, {
    spec: given,
    fanout: 4,
    requireAll: false,
    json: true,
    readyTimeoutMs: 5_000,
    tui: false,
  }).then(
    (code) => new Error(`up exited ${code}`),
    (e: unknown) => e,
  );
  if (!(err instanceof ExpectedError)) throw err;
  return err;
}

describe('a failed up', () => {
  it('leaves no dir of the cluster, so logs --name says there is no such cluster (exit 2)', async () => {
    expect((await failedUp()).message).toContain('scheduler host far0 failed: cannot reach 127.0.0.1:1');
    expect(fs.readdirSync(stateRoot(ctx.env, ctx.homedir))).toEqual([]);
    const logs = await runLogs(ctx, { name: 'far', follow: false, tail: 10 }).then(
      () => undefined,
      (e: unknown) => e as ExpectedError,
    );
    expect({ code: logs?.exitCode, message: logs?.message }).toEqual({
      code: 2,
      message: 'no cluster named "far" on this machine, and no other cluster either',
    });
  });

  it('keeps the runs an earlier up of the same name recorded, and reads the last of them', async () => {
    const earlier = path.join(stateRoot(ctx.env, ctx.homedir), 'far', 'logs', '20260101T000000Z-abcdef');
    fs.mkdirSync(earlier, { recursive: true });
    fs.writeFileSync(path.join(earlier, 'scheduler.log'), 'the earlier run\n');
    await failedUp();
    expect(fs.readdirSync(path.dirname(earlier))).toEqual([path.basename(earlier)]);
    expect(await runLogs(ctx, { name: 'far', follow: false, tail: 10 })).toBe(0);
    expect(ctx.out()).toContain('scheduler │ the earlier run\n');
  });

  it('with its own certificates refused (made its dirs first) leaves none of them', async () => {
    const bogus = path.join(ctx.stateHome, 'not-a-cert.pem');
    fs.writeFileSync(bogus, 'not a certificate\n');
    const pair = { cert: bogus, key: bogus };
    const err = await failedUp({
      ...spec,
      security: { kind: 'tls', files: { caFile: bogus, scheduler: pair, worker: pair, client: pair } },
    });
    expect({ code: err.exitCode, message: err.message }).toEqual({
      code: 2,
      message: `security.scheduler: ${bogus} (ca_file) is not a readable certificate`,
    });
    expect(fs.readdirSync(stateRoot(ctx.env, ctx.homedir))).toEqual([]);
  });
});
