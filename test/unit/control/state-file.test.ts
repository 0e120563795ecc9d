import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type ClusterRecord,
  StateFileError,
  adaptiveFromJson,
  adaptiveToJson,
  listClusters,
  readState,
  writeState,
} from '../../../src/control/state-file.js';
import { testSpec } from '../config/spec-fixture.js';

let tmp: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sshc-state-'));
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

function state(o: Partial<ClusterRecord> = {}): ClusterRecord {
  const name = o.name ?? 't';
  return {
    version: 1,
    name,
    clusterId: 'id-1',
    spec: { ...testSpec({ workers: ['n1', 'n2'] }), name },
    controller: { pid: 123, socket: '/tmp/x.sock', startedAt: '2025-01-01T00:00:00.000Z' },
    schedulerAddress: 'tcp://n0:8786',
    dashboardUrl: 'http://n0:8787/status',
    processes: [
      { name: 'scheduler', host: 'n0', role: 'scheduler', pid: 10 },
      { name: 'n1-0', host: 'n1', role: 'worker' },
    ],
    desiredWorkers: 2,
    updatedAt: '2025-01-01T00:00:01.000Z',
    ...o,
  };
}

async function refused(p: Promise<unknown>): Promise<StateFileError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StateFileError);
  const e = err as StateFileError;
  expect(e.exitCode).toBe(1);
  return e;
}

describe('state file', () => {
  it('round-trips a state, written 0600', async () => {
    const file = path.join(tmp, 'state.json');
    await writeState(file, state());
    expect(await readState(file, { name: 't', clusterId: 'id-1' })).toEqual(state());
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(tmp)).toEqual(['state.json']);
  });

  it('keeps the adaptive settings in force, an unbounded maximum included, and refuses damaged ones', async () => {
    const file = path.join(tmp, 'state.json');
    const spec = {
      minimum: 1,
      maximum: Infinity,
      intervalMs: 2_000,
      waitCount: 7,
      targetDurationMs: 5_000,
      maximumCores: 8,
    };
    await writeState(file, state({ adaptive: adaptiveToJson(spec) }));
    const back = await readState(file);
    expect(back?.adaptive).toEqual({ ...spec, maximum: null });
    expect(adaptiveFromJson(back!.adaptive!)).toEqual(spec);
    await writeState(file, state({ adaptive: null }));
    expect((await readState(file))?.adaptive).toBeNull();
    fs.writeFileSync(file, JSON.stringify(state({ adaptive: { ...adaptiveToJson(spec), waitCount: 0 } })));
    expect((await refused(readState(file))).message).toContain('adaptive.waitCount');
  });

  // A controller given waitCount 0 over its socket wrote it: every later write (which
  // reads the file first) and every command then refused the file, the controller
  // running on unreachable. A state the reader would refuse is not written.
  it('does not write a state it would refuse to read, and keeps the one there', async () => {
    const file = path.join(tmp, 'state.json');
    await writeState(file, state());
    const bad = state({
      adaptive: {
        ...adaptiveToJson({ minimum: 0, maximum: 4, intervalMs: 1000, waitCount: 3, targetDurationMs: 5000 }),
        waitCount: 0,
      },
    });
    const e = await refused(writeState(file, bad));
    expect(e.message).toBe(
      `${file}: refused to write an invalid state (adaptive.waitCount: expected a whole number > 0, got number 0); the file there is kept`,
    );
    expect(await readState(file)).toEqual(state());
    expect(fs.readdirSync(tmp)).toEqual(['state.json']);
    await writeState(file, state({ desiredWorkers: 3 })); // and the next good one goes in
    expect((await readState(file))?.desiredWorkers).toBe(3);
  });

  it('reads a missing file as undefined', async () => {
    expect(await readState(path.join(tmp, 'state.json'))).toBeUndefined();
  });

  it('leaves the old file intact when a write died before its rename', async () => {
    fs.mkdirSync(path.join(tmp, 't'));
    const file = path.join(tmp, 't', 'state.json');
    await writeState(file, state({ desiredWorkers: 1 }));
    // What a crash between write and rename leaves: a partial temp file next to it.
    fs.writeFileSync(path.join(tmp, 't', '.state.json.abcdef.tmp'), '{"version":1,"na');
    expect((await readState(file))?.desiredWorkers).toBe(1);
    expect(await listClusters(tmp)).toEqual([{ name: 't', state: state({ desiredWorkers: 1 }) }]);
    await writeState(file, state({ desiredWorkers: 3 }));
    expect((await readState(file))?.desiredWorkers).toBe(3);
  });

  it('refuses a corrupt file, naming it, with a hint to move it aside', async () => {
    const file = path.join(tmp, 'state.json');
    fs.writeFileSync(file, '{"version":1,"name":');
    const e = await refused(readState(file));
    expect(e.message).toMatch(new RegExp(`^${file}: not valid JSON`));
    expect(e.hint).toBe(`move it aside: mv ${file} ${file}.bad, after checking no cluster of that name is running`);
  });

  it('refuses another version', async () => {
    const file = path.join(tmp, 'state.json');
    fs.writeFileSync(file, JSON.stringify({ ...state(), version: 2 }));
    expect((await refused(readState(file))).message).toBe(
      `${file}: unsupported state file version 2 (this sshcluster reads version 1)`,
    );
    fs.writeFileSync(file, '[]');
    expect((await refused(readState(file))).message).toMatch(/not a valid state file: top level: /);
  });

  it('refuses missing or mistyped fields, saying which', async () => {
    const file = path.join(tmp, 'state.json');
    const { clusterId: _, ...noId } = state();
    fs.writeFileSync(file, JSON.stringify(noId));
    expect((await refused(readState(file))).message).toMatch(/not a valid state file: clusterId: /);
    fs.writeFileSync(file, JSON.stringify({ ...state(), processes: [{ name: 'x', host: 'h', role: 'boss' }] }));
    expect((await refused(readState(file))).message).toMatch(/not a valid state file: processes\.0\.role: /);
    fs.writeFileSync(file, JSON.stringify({ ...state(), spec: { ...state().spec, workerHosts: 'n1' } }));
    expect((await refused(readState(file))).message).toMatch(/spec\.workerHosts: /);
  });

  it('refuses the file of another cluster, and does not overwrite it', async () => {
    const file = path.join(tmp, 'state.json');
    await writeState(file, state());
    expect((await refused(readState(file, { name: 'other' }))).message).toBe(
      `${file}: belongs to another cluster (name is "t", expected "other")`,
    );
    expect((await refused(readState(file, { clusterId: 'id-2' }))).message).toMatch(
      /clusterId is "id-1", expected "id-2"/,
    );
    await refused(writeState(file, state({ clusterId: 'id-2' })));
    await refused(writeState(file, state({ name: 'other' })));
    expect((await readState(file))?.clusterId).toBe('id-1');
    await writeState(file, state({ clusterId: 'id-2' }), { replace: true });
    expect((await readState(file))?.clusterId).toBe('id-2');
  });

  it('does not overwrite a corrupt file unless told to', async () => {
    const file = path.join(tmp, 'state.json');
    fs.writeFileSync(file, 'garbage');
    await refused(writeState(file, state()));
    expect(fs.readFileSync(file, 'utf8')).toBe('garbage');
    await writeState(file, state(), { replace: true });
    expect(await readState(file)).toEqual(state());
  });

  it('lists every cluster dir with a state file, with the error of an unreadable one', async () => {
    for (const n of ['b', 'a', 'bad', 'empty']) fs.mkdirSync(path.join(tmp, n));
    await writeState(path.join(tmp, 'a', 'state.json'), state({ name: 'a' }));
    await writeState(path.join(tmp, 'b', 'state.json'), state({ name: 'b' }));
    fs.writeFileSync(path.join(tmp, 'bad', 'state.json'), '{');
    fs.writeFileSync(path.join(tmp, 'stray.json'), '{}');
    const listed = await listClusters(tmp);
    expect(listed.map((c) => [c.name, c.state?.name, c.error !== undefined])).toEqual([
      ['a', 'a', false],
      ['b', 'b', false],
      ['bad', undefined, true],
    ]);
    expect(listed[2]?.error).toMatch(/bad\/state\.json: not valid JSON/);
    expect(await listClusters(path.join(tmp, 'nope'))).toEqual([]);
  });

  it('refuses a state file in the dir of another cluster name', async () => {
    fs.mkdirSync(path.join(tmp, 'a'));
    await writeState(path.join(tmp, 'a', 'state.json'), state({ name: 'b' }));
    expect((await listClusters(tmp))[0]?.error).toMatch(/belongs to another cluster/);
  });
});
