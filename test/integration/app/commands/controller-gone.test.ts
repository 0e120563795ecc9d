// `down` through a controller returns only once that controller is gone (its state file
// removed, or its process ended): `apply --recreate` starts the new cluster right after,
// and an `up` that still found the old state file took the old cluster's spec from it.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { controllerGone } from '../../../../src/app/commands/find-cluster.js';
import type { ClusterPaths } from '../../../../src/control/paths.js';
import type { ClusterRecord } from '../../../../src/control/state-file.js';

let tmp = '';
let child: ChildProcess | undefined;
afterEach(() => {
  child?.kill('SIGKILL');
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/** A process whose command line says sshcluster, as a controller's does, and its state file. */
async function controller(): Promise<{
  found: { paths: ClusterPaths; state: ClusterRecord };
  stateFile: string;
  proc: ChildProcess;
}> {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sshc-gone-'));
  const stateFile = path.join(tmp, 'state.json');
  fs.writeFileSync(stateFile, '{}');
  const proc = spawn(
    '/usr/bin/python3',
    ['-c', 'import sys, time; print(1, flush=True); time.sleep(60)', 'sshcluster-controller'],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  child = proc;
  await new Promise((r) => proc.stdout!.once('data', r));
  const found = { paths: { stateFile } as ClusterPaths, state: { controller: { pid: proc.pid! } } as ClusterRecord };
  return { found, stateFile, proc };
}

const timed = async (p: Promise<void>) => {
  const t0 = Date.now();
  await p;
  return Date.now() - t0;
};

describe('controllerGone', () => {
  it('waits while the controller lives and its state file is there; returns once the file goes', async () => {
    const { found, stateFile } = await controller();
    setTimeout(() => fs.rmSync(stateFile), 300);
    const ms = await timed(controllerGone(found, 10_000));
    expect(ms).toBeGreaterThanOrEqual(250);
    expect(ms).toBeLessThan(10_000);
  });

  it('returns once the controller process ends, when its state file stays (an unclean teardown)', async () => {
    const { found, proc } = await controller();
    setTimeout(() => proc.kill('SIGKILL'), 300);
    const ms = await timed(controllerGone(found, 10_000));
    expect(ms).toBeGreaterThanOrEqual(250);
    expect(ms).toBeLessThan(10_000);
    expect(fs.existsSync(found.paths.stateFile)).toBe(true);
  });

  it('gives up after its bound when neither happens', async () => {
    const { found } = await controller();
    const ms = await timed(controllerGone(found, 200));
    expect(ms).toBeGreaterThanOrEqual(200);
    expect(ms).toBeLessThan(5_000);
  });
});
