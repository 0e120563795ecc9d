// check lists each host's declared resources and cross-checks GPU against nvidia-smi -L.
import { describe, expect, it } from 'vitest';
import { evaluateCheck, type HostObservation } from '../../../../src/app/check/check-evaluate.js';
import { checkJson, renderCheck } from '../../../../src/app/check/check-format.js';
import type { ProbeResult } from '../../../../src/app/check/check-probe.js';
import { resourcesCell } from '../../../../src/app/check/check-resources.js';

const GPU_LINE = 'GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-1)';
const probe = (gpus: string[]): ProbeResult => ({
  cores: 8,
  memoryBytes: 16 * 2 ** 30,
  gpus,
  pythonPath: '/usr/bin/python3',
  pythonVersion: '3.11.2',
  dask: '2024.12.1',
  distributed: '2024.12.1',
});
const host = (
  name: string,
  role: HostObservation['role'],
  resources: Record<string, number> | undefined,
  gpus: string[] = [],
): HostObservation => ({
  host: name,
  role,
  remotePython: 'python3',
  ...(resources ? { resources } : {}),
  connect: { ok: true, authMethod: 'publickey /k/id_ed25519', hostKey: 'known' },
  probe: probe(gpus),
});
const sched = host('n0', 'scheduler', undefined);

describe('check: resources', () => {
  it("shows each host's resources in a RESOURCES column next to GPUS, the way dask worker --resources spells them", () => {
    const r = evaluateCheck([
      sched,
      host('gpu1', 'worker', { GPU: 2 }, [GPU_LINE, GPU_LINE]),
      host('big', 'worker', { MEMORY: 100e9 }),
      host('c1', 'worker', {}),
    ]);
    const lines = renderCheck(r).split('\n');
    expect(lines[0]).toMatch(/\sGPUS\s+RESOURCES\s+NETWORK\s/);
    expect(lines[1]).toMatch(/^n0 .*\s0\s+-\s+-\s+-$/);
    expect(lines[2]).toMatch(/^gpu1 .*\s2\s+GPU=2\s/);
    expect(lines[3]).toMatch(/^big .*\s0\s+MEMORY=1e11\s/);
    expect(lines[4]).toMatch(/^c1 .*\s0\s+-\s/);
    expect(r.problems).toEqual([]);
    expect(JSON.parse(checkJson(r)).rows[1].resources).toEqual({ GPU: 2 });
  });

  it('shows declared resources even for a host that could not be reached', () => {
    const down: HostObservation = {
      host: 'gpu9',
      role: 'worker',
      remotePython: 'python3',
      resources: { GPU: 1 },
      connect: { ok: false, reason: 'timeout', message: 'no answer' },
    };
    expect(renderCheck(evaluateCheck([sched, down])).split('\n')[2]).toMatch(
      /^gpu9\s+worker\s+timeout\s.*\sGPU=1\s+-\s+-$/,
    );
  });

  it('warns when a host declares GPU but nvidia-smi -L lists none', () => {
    const r = evaluateCheck([sched, host('gpu1', 'worker', { GPU: 2 })]);
    expect(r.problems).toEqual([
      expect.objectContaining({
        host: 'gpu1',
        severity: 'warning',
        message: 'declares GPU=2 but `nvidia-smi -L` lists no GPU',
      }),
    ]);
    expect(r.launchable).toBe(true);
  });

  it('warns when a worker declares more GPUs than the host lists', () => {
    const r = evaluateCheck([sched, host('gpu1', 'worker', { GPU: 4 }, [GPU_LINE, GPU_LINE])]);
    expect(r.problems.map((p) => p.message)).toEqual(['declares GPU=4 per worker but `nvidia-smi -L` lists 2']);
  });

  it('warns the other way round: GPUs found, none declared (worker hosts only)', () => {
    const r = evaluateCheck([host('n0', 'scheduler', undefined, [GPU_LINE]), host('n1', 'worker', {}, [GPU_LINE])]);
    expect(r.problems.map((p) => [p.host, p.message, p.hint])).toEqual([
      [
        'n1',
        '`nvidia-smi -L` lists 1 GPU but the host declares no GPU resource',
        'add worker_options: {resources: {GPU: 1}} to it so tasks submitted with resources={"GPU": 1} can run there',
      ],
    ]);
  });

  it('formats amounts compactly', () => {
    expect(resourcesCell({ GPU: 2, MEMORY: 70e9, FOO: 0.5 })).toBe('GPU=2 MEMORY=7e10 FOO=0.5');
    expect(resourcesCell(undefined)).toBe('-');
  });
});
