// The scheduler's host listed twice in the host file (it runs workers too): each listing
// keeps its own options, so the workers there run with the worker listing's.
import { describe, expect, it } from 'vitest';
import { processSpecs } from '../../../../src/app/controller/process-specs.js';
import type { ClusterSpec } from '../../../../src/config/spec.js';
import { testHost, testSpec } from '../../config/spec-fixture.js';

describe('processSpecs', () => {
  it("starts a worker on the scheduler's host with its worker listing's options, python, env and setup, the scheduler with its own", () => {
    const base = testSpec({ workers: [] });
    const worker = {
      ...testHost('n0'),
      remotePython: '/opt/py/bin/python3',
      env: { A: 'worker' },
      setup: ['conda activate w'],
      workerOptions: { ...testHost('n0').workerOptions, nthreads: 8 },
    };
    const spec: ClusterSpec = {
      ...base,
      schedulerHost: { ...base.schedulerHost, env: { A: 'scheduler' } },
      workerHosts: [worker],
    };
    const specFor = processSpecs(() => spec, 'tcp://n0:8786');
    const w = specFor({ name: 'n0-0', host: 'n0', role: 'worker' })!;
    expect(w.argv.join(' ')).toContain('--nthreads 8');
    expect(w.argv.join(' ')).toContain('/opt/py/bin/python3');
    expect(w.env.A).toBe('worker');
    expect(w.setup).toEqual(['conda activate w']);
    const s = specFor({ name: 'scheduler', host: 'n0', role: 'scheduler' })!;
    expect(s.argv.join(' ')).not.toContain('/opt/py');
    expect(s.env.A).toBe('scheduler');
    expect(s.setup).toEqual([]);
    // A worker left on a host that is no worker host any more (apply removed it) is not started again.
    expect(
      processSpecs(() => ({ ...spec, workerHosts: [] }), 'tcp://n0:8786')({ name: 'n0-0', host: 'n0', role: 'worker' }),
    ).toBeUndefined();
  });

  it("gives every process the cluster's name (SSHCLUSTER_CLUSTER), whatever the host file's env says", () => {
    const base = testSpec({ workers: ['n1'] });
    const spec: ClusterSpec = {
      ...base,
      name: 'lab',
      workerHosts: [{ ...testHost('n1'), env: { SSHCLUSTER_CLUSTER: 'x' } }],
    };
    const specFor = processSpecs(() => spec, 'tcp://n0:8786');
    expect(specFor({ name: 'n1-0', host: 'n1', role: 'worker' })!.env.SSHCLUSTER_CLUSTER).toBe('lab');
    expect(specFor({ name: 'scheduler', host: 'n0', role: 'scheduler' })!.env.SSHCLUSTER_CLUSTER).toBe('lab');
  });
});
