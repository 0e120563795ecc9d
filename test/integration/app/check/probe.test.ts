import { describe, expect, it } from 'vitest';
import { parsePortsLine, parseProbe, probeScript } from '../../../../src/app/check/check-probe.js';
import { remoteProgram } from '../../../../src/dask/remote-programs.js';
import { testHost } from '../../../unit/config/spec-fixture.js';

describe('probeScript', () => {
  it("prints the date before the host's setup, then runs remote_python found by command -v; env only on stdin", () => {
    const h = {
      ...testHost('n1'),
      setup: ['. ~/venv/bin/activate'],
      env: { A: 'b c' },
      remotePython: '~/venv/bin/python',
    };
    const { command, input } = probeScript(h);
    expect(command.indexOf('@sshc date')).toBeLessThan(command.indexOf('. ~/venv/bin/activate'));
    expect(command).not.toContain('b c');
    expect(input.startsWith("export A='b c'\n\n")).toBe(true);
    // The probe program follows the env block on stdin, run inline by the interpreter found.
    expect(input.endsWith(remoteProgram('check-probe').source)).toBe(true);
    expect(command).toContain('P=$(command -v "$HOME"/venv/bin/python 2>/dev/null)');
    expect(command).toMatch(/"\$P" -c '[^']+' sshcluster-probe \d+ -; echo "@sshc pyexit \$\?"/);
  });
});

describe('the probe under a real Python', () => {
  it("reports Python's ssl and its TLS versions", async () => {
    const { execFile } = await import('node:child_process');
    const { command, input } = probeScript({ ...testHost('n1'), remotePython: '/usr/bin/python3' });
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile('sh', ['-c', command], (err, out) => (err ? reject(err) : resolve(out))).stdin?.end(input),
    );
    const r = parseProbe(stdout, '');
    expect(r.sslError).toBeUndefined();
    expect(r.ssl).toMatchObject({ tls12: true, tls13: true });
    expect(r.ssl?.openssl).toMatch(/^OpenSSL \d/);
  });
});

describe('parseProbe', () => {
  it('reads the marked lines and ignores setup noise', () => {
    const out = [
      '@sshc date 1700000000.250000000',
      'module loaded',
      '@sshc cores 16',
      '@sshc memkb 32768000',
      '@sshc gpu GPU 0: NVIDIA A100 (UUID: GPU-1)',
      '@sshc python /usr/bin/python3',
      '@sshc py {"version": "3.11.2", "dask": "2024.1.0", "distributed_error": "ModuleNotFoundError: No module named \'distributed\'"}',
      '@sshc reach {"ok": false, "error": "timed out"}',
      '@sshc pyexit 0',
    ].join('\n');
    expect(parseProbe(out, '')).toEqual({
      remoteTime: 1700000000.25,
      cores: 16,
      memoryBytes: 32768000 * 1024,
      gpus: ['GPU 0: NVIDIA A100 (UUID: GPU-1)'],
      pythonPath: '/usr/bin/python3',
      pythonVersion: '3.11.2',
      dask: '2024.1.0',
      distributedError: "ModuleNotFoundError: No module named 'distributed'",
      reach: { ok: false, error: 'timed out' },
    });
  });
  it('tells a missing python from one that failed to run', () => {
    expect(parseProbe('@sshc python \n', '').pythonPath).toBeUndefined();
    const broken = parseProbe('@sshc python /usr/bin/python3\n@sshc pyexit 139\n', 'Segmentation fault\n');
    expect(broken.pythonFailed).toBe('exit 139: Segmentation fault');
  });
  it('sees the line the body prints first, after the setup', () => {
    expect(parseProbe('@sshc date 1700000000.5\n@sshc ready\n', '').ready).toBe(true);
    expect(parseProbe('@sshc date 1700000000.5\n', '').ready).toBeUndefined();
  });
  it('accepts a date without nanoseconds (busybox)', () => {
    expect(parseProbe('@sshc date 1700000000.N\n', '').remoteTime).toBe(1700000000);
  });
});

describe('parsePortsLine', () => {
  it("reads the listener's pid and bind errors", () => {
    expect(parsePortsLine('@sshc ports {"pid": 42, "scheduler": null, "dashboard": "Address already in use"}')).toEqual(
      { pid: 42, dashboard: 'Address already in use' },
    );
    expect(parsePortsLine('garbage')).toBeUndefined();
  });
});
