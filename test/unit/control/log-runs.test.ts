import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { endRun, listRuns, newRunId, pickRun, runDir, startRun } from '../../../src/control/log-runs.js';

let tmp: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sshc-runs-'));
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

const at = (s: number) => newRunId(new Date(Date.UTC(2025, 0, 1, 0, 0, s)));

describe('log runs', () => {
  it('names runs so that they sort by start time, and only such names are runs', () => {
    const ids = [at(30), at(5), at(59)];
    expect(ids[0]).toMatch(/^20250101T000030Z-[0-9a-f]{6}$/);
    for (const id of ids) fs.mkdirSync(path.join(tmp, id));
    fs.mkdirSync(path.join(tmp, 'not-a-run'));
    fs.writeFileSync(path.join(tmp, 'scheduler.log'), 'from a version without runs\n');
    expect(listRuns(tmp)).toEqual([ids[1], ids[0], ids[2]]);
    expect(listRuns(path.join(tmp, 'missing'))).toEqual([]);
    expect(() => runDir(tmp, '../x')).toThrow(/not a run id/);
  });

  it('picks the current run, else the latest; --previous the one before', () => {
    const [a, b, c] = [at(1), at(2), at(3)];
    const runs = [a, b, c];
    expect(pickRun(runs, b, false)).toBe(b);
    expect(pickRun(runs, b, true)).toBe(a);
    expect(pickRun(runs, a, true)).toBeUndefined();
    expect(pickRun(runs, undefined, false)).toBe(c); // after down: the last run
    expect(pickRun(runs, undefined, true)).toBe(b);
    // A current run with nothing recorded yet is not mistaken for an older one.
    expect(pickRun([a, b], c, false)).toBeUndefined();
    expect(pickRun([a, b], c, true)).toBe(b);
    expect(pickRun([], undefined, false)).toBeUndefined();
  });

  it('starts a run in a 0700 dir beside the newest `keep` runs, and ends it with `keep` in all, the current one always', async () => {
    const old = [1, 2, 3, 4, 5, 6].map(at);
    for (const id of old) fs.mkdirSync(path.join(tmp, id, 'x'), { recursive: true });
    const current = at(7);
    const dir = await startRun(tmp, current, 3);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(listRuns(tmp)).toEqual([old[3], old[4], old[5], current]);
    fs.writeFileSync(path.join(dir, 'scheduler.log'), 'a line\n');
    expect(await endRun(tmp, current, 3)).toBe(false);
    expect(listRuns(tmp)).toEqual([old[4], old[5], current]);
    // A re-adopting controller goes on in its run, even one older than the others.
    await startRun(tmp, old[4]!, 1);
    expect(listRuns(tmp)).toEqual([old[4], current]);
  });

  // helper-24's note: a failed up (its run empty) took the oldest kept run with it.
  it('a run that ends having recorded nothing goes, and takes no older run with it', async () => {
    const old = [1, 2, 3].map(at);
    for (const id of old) {
      fs.mkdirSync(path.join(tmp, id));
      fs.writeFileSync(path.join(tmp, id, 'scheduler.log'), 'x\n');
    }
    const current = at(4);
    await startRun(tmp, current, 3);
    expect(await endRun(tmp, current, 3)).toBe(true);
    expect(listRuns(tmp)).toEqual(old);
  });
});
