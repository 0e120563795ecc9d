import { describe, expect, it } from 'vitest';
import { evaluateCheck, type HostObservation } from '../../../../src/app/check/check-evaluate.js';
import { renderCheck, checkJson } from '../../../../src/app/check/check-format.js';
import type { ProbeResult } from '../../../../src/app/check/check-probe.js';

const probe = (over: Partial<ProbeResult> = {}): ProbeResult => ({
  cores: 8,
  memoryBytes: 16 * 2 ** 30,
  gpus: [],
  pythonPath: '/usr/bin/python3',
  pythonVersion: '3.11.2',
  dask: '2024.1.0',
  distributed: '2024.1.0',
  ssl: { openssl: 'OpenSSL 3.0.15 3 Sep 2024', tls12: true, tls13: true },
  ...over,
});
const connected = { ok: true as const, authMethod: 'publickey /home/u/.ssh/id_ed25519', hostKey: 'known' as const };
const sched = (over: Partial<HostObservation> = {}): HostObservation => ({
  host: 'n0',
  role: 'scheduler',
  remotePython: 'python3',
  connect: connected,
  probe: probe(),
  clockOffsetS: 0.01,
  ports: { kind: 'tested', port: 8786, dashboardPort: 8787 },
  ...over,
});
const worker = (host: string, over: Partial<HostObservation> = {}): HostObservation => ({
  host,
  role: 'worker',
  remotePython: 'python3',
  connect: connected,
  probe: probe(),
  clockOffsetS: -0.02,
  reach: { kind: 'ok', target: 'n0:8786' },
  ...over,
});

describe('evaluateCheck', () => {
  it("blames a failing setup line, not python, when the probe's body never ran", () => {
    const failed = worker('n1', { probe: { gpus: [], setupFailed: 'exit 7: conda: command not found' } });
    const r = evaluateCheck([sched(), failed]);
    expect(r.problems.filter((p) => p.host === 'n1').map((p) => p.message)).toContain(
      "the host's setup lines failed (exit 7: conda: command not found); nothing after them ran",
    );
    expect(r.problems.map((p) => p.message).join('\n')).not.toContain('python not found');
  });

  it('finds nothing wrong with good hosts: launchable', () => {
    const r = evaluateCheck([sched(), worker('n1'), worker('n2')]);
    expect(r.problems).toEqual([]);
    expect(r.launchable).toBe(true);
    expect(renderCheck(r)).toContain('Launchable: 3 host(s) checked.');
  });

  it("flags an unreachable host with the SSH layer's hint", () => {
    const down = worker('n3', {
      connect: {
        ok: false,
        reason: 'timeout',
        message: 'no SSH handshake with n3:22 within 2s',
        hint: 'check that the host is up',
      },
    });
    delete down.probe;
    const r = evaluateCheck([sched(), down]);
    expect(r.launchable).toBe(false);
    expect(r.problems).toEqual([
      {
        host: 'n3',
        severity: 'error',
        message: 'no SSH handshake with n3:22 within 2s',
        hint: 'check that the host is up',
      },
    ]);
  });

  it("flags a missing python and a missing distributed, pinning the scheduler's version", () => {
    const r = evaluateCheck([
      sched(),
      worker('n1', {
        remotePython: '/opt/py',
        probe: probe({ pythonPath: undefined, pythonVersion: undefined, dask: undefined, distributed: undefined }),
      }),
      worker('n2', {
        probe: probe({
          distributed: undefined,
          distributedError: "ModuleNotFoundError: No module named 'distributed'",
        }),
      }),
    ]);
    expect(r.problems.map((p) => [p.host, p.message])).toEqual([
      ['n1', 'python not found: remote_python "/opt/py"'],
      ['n2', "distributed cannot be imported by /usr/bin/python3: ModuleNotFoundError: No module named 'distributed'"],
    ]);
    expect(r.problems[1]!.hint).toBe(
      // The cluster's interpreter on that host, as exec offers it (not the login shell's python3).
      'install it for that interpreter: sshcluster exec HOSTS.yaml -- \'"$SSHCLUSTER_PYTHON" -m pip install "distributed==2024.1.0"\'; or remove remote_python to use the first of python3, /usr/bin/python3, python that has distributed',
    );
    // No `command -v python3` (the login shell's, which the cluster need not run).
    expect(r.problems[0]!.hint).toBe(
      'set remote_python to the full path of an interpreter with distributed on that host, or remove it to use the first of python3, /usr/bin/python3, python that has distributed',
    );
    // The command in a hint names the file checked, as given.
    const named = evaluateCheck(
      [sched(), worker('n1', { probe: probe({ distributed: undefined, distributedError: 'No module' }) })],
      "'my lab.yaml'",
    );
    expect(named.problems[0]!.hint).toContain(
      `sshcluster exec 'my lab.yaml' -- '"$SSHCLUSTER_PYTHON" -m pip install "distributed==2024.1.0"'`,
    );
  });

  it('with remote_python auto, says that no candidate has distributed (not: install it for the same one)', () => {
    const r = evaluateCheck([
      sched({ remotePython: 'auto' }),
      worker('n1', {
        remotePython: 'auto',
        probe: probe({ pythonPath: undefined, pythonVersion: undefined, dask: undefined, distributed: undefined }),
      }),
      worker('n2', {
        remotePython: 'auto',
        probe: probe({
          pythonPath: '/home/u/.pyenv/shims/python3',
          distributed: undefined,
          distributedError: "ModuleNotFoundError: No module named 'distributed'",
        }),
      }),
    ]);
    expect(r.problems.map((p) => [p.host, p.message, p.hint])).toEqual([
      [
        'n1',
        'python not found: none of python3, /usr/bin/python3, python is on that host',
        "install Python 3 with distributed (apt-get install python3-distributed), or set remote_python to the interpreter's full path",
      ],
      [
        'n2',
        "distributed cannot be imported by /home/u/.pyenv/shims/python3: ModuleNotFoundError: No module named 'distributed'",
        'none of python3, /usr/bin/python3, python has distributed: install it for one (/home/u/.pyenv/shims/python3 -m pip install "distributed==2024.1.0", or apt-get install python3-distributed), or set remote_python to an interpreter that has it',
      ],
    ]);
  });

  it('flags versions that differ from the scheduler host (errors) and a python minor mismatch (warning)', () => {
    const r = evaluateCheck([
      sched(),
      worker('n1', { probe: probe({ distributed: '2099.1.0', pythonVersion: '3.10.4' }) }),
    ]);
    expect(r.problems.map((p) => [p.severity, p.message])).toEqual([
      ['error', "distributed 2099.1.0 differs from the scheduler host's 2024.1.0"],
      ['warning', "python 3.10.4 differs from the scheduler host's 3.11.2"],
    ]);
    expect(r.problems[0]!.hint).toBe(
      `install the same version everywhere: sshcluster exec HOSTS.yaml -- '"$SSHCLUSTER_PYTHON" -m pip install "distributed==2024.1.0"'`,
    );
    expect(r.launchable).toBe(false);
  });

  it('flags taken ports on the scheduler host and a worker that cannot reach the scheduler', () => {
    const r = evaluateCheck([
      sched({ ports: { kind: 'tested', port: 8786, dashboardPort: 8787, scheduler: 'Address already in use' } }),
      worker('n1', { reach: { kind: 'failed', target: 'n0:8786', error: 'timed out' } }),
    ]);
    expect(r.problems.map((p) => p.message)).toEqual([
      'scheduler port 8786 is taken (Address already in use)',
      'cannot connect to the scheduler at n0:8786 (timed out)',
    ]);
    expect(r.problems[0]!.hint).toContain('scheduler_options.port');
  });

  // helper-22's trial: "TAKEN" without a word of which cluster holds the port.
  it("names this machine's cluster that holds a taken port, and how to stop it", () => {
    const r = evaluateCheck([
      sched({
        ports: {
          kind: 'tested',
          port: 8786,
          dashboardPort: 8787,
          scheduler: 'Address already in use',
          dashboard: 'Address already in use',
          heldBy: { scheduler: 'lab' },
        },
      }),
      worker('n1'),
    ]);
    expect(r.problems.map((p) => p.hint)).toEqual([
      'it is cluster "lab"\'s (sshcluster list): stop it with `sshcluster down --name lab`, or set scheduler_options.port',
      "stop what listens there (`ss -ltnp 'sport = :8787'` on the host) or set scheduler_options.dashboard_address",
    ]);
    // helper-26's trial: checking the file a cluster runs from said to tear it down.
    const own = evaluateCheck(
      [
        sched({
          ports: {
            kind: 'tested',
            port: 8786,
            dashboardPort: 8787,
            scheduler: 'Address already in use',
            heldBy: { scheduler: 'lab', own: true },
          },
        }),
      ],
      'h.yaml',
    );
    expect(own.problems[0]!.hint).toBe(
      'it is this file\'s cluster "lab", running: check is for hosts before up (`sshcluster status --name lab` shows it, `sshcluster plan h.yaml` what a change would do)',
    );
  });

  it('warns about clock skew beyond 1s without blocking the launch', () => {
    const r = evaluateCheck([sched(), worker('n1', { clockOffsetS: -3.4 })]);
    expect(r.problems).toMatchObject([{ severity: 'warning', message: 'clock is 3.4s behind this machine' }]);
    expect(r.launchable).toBe(true);
  });
});

describe('evaluateCheck: TLS', () => {
  it("is an error when a TLS cluster's Python has no ssl module or no TLS 1.2", () => {
    const noSsl = probe({ ssl: undefined, sslError: "ModuleNotFoundError: No module named '_ssl'" });
    const old = probe({ ssl: { openssl: 'OpenSSL 0.9.8', tls12: false, tls13: false } });
    const r = evaluateCheck([
      sched({ tls: true }),
      worker('n1', { tls: true, probe: noSsl }),
      worker('n2', { tls: true, probe: old }),
    ]);
    expect(r.launchable).toBe(false);
    expect(r.problems.filter((p) => p.severity === 'error').map((p) => `${p.host}: ${p.message}`)).toEqual([
      "n1: /usr/bin/python3 has no usable ssl module (ModuleNotFoundError: No module named '_ssl'): the cluster's TLS needs it",
      "n2: /usr/bin/python3's ssl (OpenSSL 0.9.8) cannot do TLS 1.2, which Dask requires at least",
    ]);
    expect(renderCheck(r).split('\n')[2]).toMatch(/\s+no ssl\s+/);
  });

  it('does not mind for a cluster with security: none', () => {
    const noSsl = probe({ ssl: undefined, sslError: 'ImportError: x' });
    expect(evaluateCheck([sched({ tls: false }), worker('n1', { tls: false, probe: noSsl })]).launchable).toBe(true);
  });
});

describe('renderCheck', () => {
  it('prints one row per host and folds the same problem on many hosts', () => {
    const missing = probe({ dask: undefined, daskError: 'ModuleNotFoundError: x' });
    const r = evaluateCheck([sched(), worker('n1', { probe: missing }), worker('n2', { probe: missing })]);
    const text = renderCheck(r);
    const lines = text.split('\n');
    expect(lines[0]).toMatch(
      /^HOST\s+ROLE\s+SSH\s+AUTH\s+HOST KEY\s+PYTHON\s+DASK\s+DISTRIBUTED\s+TLS\s+CORES\s+MEMORY\s+GPUS\s+RESOURCES\s+NETWORK\s+CLOCK$/,
    );
    expect(lines[1]).toMatch(
      /^n0\s+scheduler\s+ok\s+key id_ed25519\s+known\s+\/usr\/bin\/python3 3\.11\.2\s+2024\.1\.0\s+2024\.1\.0\s+1\.3\s+8\s+16\.0G\s+0\s+-\s+:8786 free, :8787 free\s+\+0\.01s$/,
    );
    expect(lines[2]).toContain('→ n0:8786 ok');
    expect(text).toContain(
      'ERROR n[1-2]: dask cannot be imported by /usr/bin/python3: ModuleNotFoundError: x\n        fix: install it',
    );
    expect(text).toContain('Not launchable: 2 error(s) on 2 host(s).');
  });
  it('gives one JSON document with rows and a summary', () => {
    const doc = JSON.parse(checkJson(evaluateCheck([sched(), worker('n1')])));
    expect(doc.summary).toEqual({ launchable: true, hosts: 2, errors: 0, warnings: 0 });
    expect(doc.rows[1]).toMatchObject({
      host: 'n1',
      role: 'worker',
      probe: { cores: 8 },
      reach: { kind: 'ok' },
      problems: [],
    });
  });
});

describe('check: the controller’s open files', () => {
  const hosts = (n: number) => [sched(), ...Array.from({ length: n - 1 }, (_, i) => worker(`w${i}`))];

  it('says nothing while the limit leaves room: 1,000 hosts under 20,000 open files', () => {
    const r = evaluateCheck(hosts(1000), 'hosts.yaml', 20_000);
    expect(r.problems).toEqual([]);
    expect(r.launchable).toBe(true);
  });

  it('refuses a host file the controller could not hold open (1,000 hosts, a hard limit of 1,024), with how many fit and the fix', () => {
    const r = evaluateCheck(hosts(1000), 'hosts.yaml', 1024);
    expect(r.launchable).toBe(false);
    expect(r.problems).toEqual([
      {
        host: 'this machine',
        severity: 'error',
        message:
          'the controller may hold 1024 open files, enough for about 480 hosts; 1000 hosts need about 2064 (2 a host + 64)',
        hint: 'raise the hard limit for the user that runs sshcluster (ulimit -Hn, or nofile in /etc/security/limits.conf) to at least 2580',
      },
    ]);
    expect(renderCheck(r)).toContain('ERROR this machine: the controller may hold 1024 open files');
  });

  it('warns within a fifth of the limit', () => {
    expect(evaluateCheck(hosts(450), 'hosts.yaml', 1024).problems.map((p) => p.severity)).toEqual(['warning']);
  });
});
