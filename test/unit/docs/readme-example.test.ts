// The README's host file is one the loader takes, and means what the walkthrough says:
// the scheduler on node0, one worker on each of node01 .. node04.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseHostFile } from '../../../src/config/load.js';
import { makeCtx } from '../fixtures/config/ctx.js';

const readme = fs.readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');

describe("README's host file", () => {
  it('loads, with the scheduler on the first host and one worker on each of the others', () => {
    const yaml = /```yaml\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(yaml).toContain('# lab.yaml');
    const spec = parseHostFile(yaml!, 'lab.yaml', makeCtx());
    expect(spec.name).toBe('lab');
    expect(spec.schedulerHost.name).toBe('node0');
    expect(spec.workerHosts.map((h) => h.name)).toEqual(['node01', 'node02', 'node03', 'node04']);
    expect(spec.workerHosts.map((h) => h.workerOptions.nthreads)).toEqual([4, 4, 4, 4]);
    expect(spec.workerHosts.map((h) => h.workerOptions.nworkers)).toEqual([1, 1, 1, 1]);
  });
});
