// sshcluster check against the real namespace hosts: good hosts pass; a missing python,
// another distributed version (faked, and the other real Dask line), a taken scheduler
// port and an unreachable host are flagged.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, sleep } from './cli-driver.js';
import { getTestHosts } from './harness/context.js';
import { processesIn, runIn, writeHostsYaml } from './harness/netns-hosts.js';

const info = getTestHosts();
const tmp = (name: string) => path.join(info.dir, name);
const [h0, h1, h2, h3] = info.hosts as [
  (typeof info.hosts)[0],
  (typeof info.hosts)[0],
  (typeof info.hosts)[0],
  (typeof info.hosts)[0],
];
const esc = (s: string) => s.replace(/[.[\]+]/g, '\\$&');
const leftovers: number[] = [];

afterAll(() => {
  for (const pid of leftovers) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

/** Our listener runs as `python -c BOOT sshcluster-listener …` (boot.py): none may outlive a check. */
const listeners = () => processesIn(h0).filter((p) => p.argv.includes('sshcluster-listener'));

describe('sshcluster check', () => {
  it('passes on good hosts: exit 0, one row per host, workers reach the scheduler port', () => {
    const file = writeHostsYaml(tmp('check-good.yaml'), info);
    const r = runCli(['check', file]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(
        `^${esc(h0.ip)}\\s+scheduler\\s+ok\\s+key client_ed25519\\s+known\\s+${esc(info.python)} 3\\.\\d+\\.\\d+\\s+\\S+\\s+\\S+\\s+1\\.[23]\\s+\\d+\\s+[\\d.]+G\\s+0\\s+-\\s+:8786 free, :8787 free`,
        'm',
      ),
    );
    for (const h of info.hosts.slice(1))
      expect(r.stdout).toMatch(new RegExp(`^${esc(h.ip)}\\s+worker\\s+ok.*→ ${esc(h0.ip)}:8786 ok`, 'm'));
    expect(r.stdout).toContain(`Launchable: ${info.hosts.length} host(s) checked.`);
    expect(listeners()).toEqual([]);

    const j = runCli(['check', file, '--json']);
    expect(j.code).toBe(0);
    const doc = JSON.parse(j.stdout);
    expect(doc.summary).toEqual({ launchable: true, hosts: info.hosts.length, errors: 0, warnings: 0 });
    expect(doc.rows[0]).toMatchObject({
      host: h0.ip,
      role: 'scheduler',
      connect: { ok: true, hostKey: 'known' },
      ports: { kind: 'tested', port: 8786 },
    });
    expect(Math.abs(doc.rows[1].clockOffsetS)).toBeLessThan(1);
  });

  it('flags a missing python, another distributed version, a taken scheduler port and an unreachable host, each with a fix', async () => {
    // A remote_python whose distributed reports another version: sitecustomize sets it.
    const fake = tmp('fakever');
    fs.mkdirSync(fake, { recursive: true });
    fs.writeFileSync(path.join(fake, 'sitecustomize.py'), 'import distributed\ndistributed.__version__ = "2099.1.0"\n');
    const wrapper = tmp('python-other-distributed');
    fs.writeFileSync(wrapper, `#!/bin/sh\nPYTHONPATH=${fake} exec ${info.python} "$@"\n`, { mode: 0o755 });
    const unreachable = h0.ip.replace(/\.\d+$/, '.251');
    const file = writeHostsYaml(
      tmp('check-bad.yaml'),
      { ...info, hosts: [h0, h1, h2, h3] },
      {
        connect_options: { connect_timeout: '2s' },
        hosts: [
          h0.ip,
          h1.ip,
          { host: h2.ip, remote_python: '/opt/no/python3' },
          { host: h3.ip, remote_python: wrapper },
          unreachable,
        ],
      },
    );
    const taker = spawn(
      'ip',
      [
        'netns',
        'exec',
        h0.ns,
        '/usr/bin/python3',
        '-c',
        'import socket,time\ns=socket.socket()\ns.setsockopt(socket.SOL_SOCKET,socket.SO_REUSEADDR,1)\ns.bind(("",8786))\ns.listen()\nprint("up",flush=True)\ntime.sleep(120)',
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    leftovers.push(taker.pid!);
    await new Promise((resolve, reject) => {
      taker.stdout!.once('data', resolve);
      taker.once('exit', (code) => reject(new Error(`port taker exited (${code})`)));
    });
    try {
      const r = runCli(['check', file]);
      expect(r.code, r.stdout + r.stderr).toBe(1);
      const out = r.stdout;
      expect(out).toMatch(new RegExp(`^${esc(h0.ip)}\\s+scheduler\\s+ok.*:8786 TAKEN, :8787 free`, 'm'));
      expect(out).toContain(
        `ERROR ${h0.ip}: scheduler port 8786 is taken (Address already in use)\n        fix: stop what listens there`,
      );
      expect(out).toMatch(new RegExp(`^${esc(h1.ip)}\\s+worker\\s+ok.*→ not tested \\(port taken\\)`, 'm'));
      expect(out).toMatch(new RegExp(`^${esc(h2.ip)}\\s+worker\\s+ok\\s+\\S+ \\S+\\s+known\\s+not found`, 'm'));
      expect(out).toContain(
        `ERROR ${h2.ip}: python not found: remote_python "/opt/no/python3"\n        fix: set remote_python`,
      );
      expect(out).toMatch(
        new RegExp(
          `ERROR ${esc(h3.ip)}: distributed 2099\\.1\\.0 differs from the scheduler host's \\S+\\n\\s+fix: install the same version everywhere: sshcluster exec \\S+ -- '"\\$SSHCLUSTER_PYTHON" -m pip install "distributed==`,
        ),
      );
      expect(out).toMatch(new RegExp(`^${esc(unreachable)}\\s+worker\\s+(timeout|unreachable)\\s`, 'm'));
      expect(out).toMatch(new RegExp(`ERROR ${esc(unreachable)}: (no SSH handshake|cannot reach).*\\n\\s+fix: check`));
      expect(out).toContain('Not launchable: 4 error(s) on 4 host(s).');
      expect(listeners()).toEqual([]);
    } finally {
      taker.kill('SIGKILL');
    }
  });

  it('flags a worker host on the other real Dask line (2022.12 beside 2024.12)', () => {
    const other = info.dask === '2022.12' ? '2024.12' : '2022.12';
    const file = writeHostsYaml(
      tmp('check-mixed.yaml'),
      { ...info, hosts: [h0, h1] },
      {
        hosts: [h0.ip, { host: h1.ip, remote_python: info.pythons[other] }],
      },
    );
    const r = runCli(['check', file]);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const out = r.stdout;
    expect(out).toMatch(new RegExp(`^${esc(h0.ip)}\\s+scheduler\\s+ok\\s.*${esc(info.python)} 3\\.`, 'm'));
    expect(out).toMatch(new RegExp(`^${esc(h1.ip)}\\s+worker\\s+ok\\s.*${esc(info.pythons[other])} 3\\.`, 'm'));
    expect(out).toMatch(
      new RegExp(
        `ERROR ${esc(h1.ip)}: distributed ${other}\\.\\S* differs from the scheduler host's ${esc(info.daskVersion)}\\n\\s+fix: install the same version everywhere: `,
      ),
    );
    expect(out).toMatch(
      new RegExp(`ERROR ${esc(h1.ip)}: dask ${other}\\.\\S* differs from the scheduler host's ${info.dask}\\.`),
    );
    // bookworm's python 3.11 beside trixie's 3.13: pickled functions may not cross.
    expect(out).toMatch(
      new RegExp(`WARN  ${esc(h1.ip)}: python 3\\.\\d+\\.\\d+ differs from the scheduler host's 3\\.`),
    );
    expect(out).toContain('Not launchable: 2 error(s) on 1 host(s), 1 warning(s).');
  });

  it("reads the resources of the scheduler's host from its second listing, the one its workers run with", () => {
    const file = writeHostsYaml(
      tmp('check-twice.yaml'),
      { ...info, hosts: [h0, h1] },
      {
        hosts: [h0.ip, { host: h0.ip, worker_options: { resources: { GPU: 1 } } }, h1.ip],
      },
    );
    const r = runCli(['check', file, '--json']);
    const doc = JSON.parse(r.stdout);
    expect(doc.rows[0]).toMatchObject({ host: h0.ip, role: 'scheduler+worker', resources: { GPU: 1 } });
    // No GPU on the test hosts: the declared one is warned about (before, the scheduler listing's none was read).
    expect(doc.summary).toMatchObject({ errors: 0, warnings: 1 });
    expect(runCli(['check', file]).stdout).toContain(
      `WARN  ${h0.ip}: declares GPU=1 but \`nvidia-smi -L\` lists no GPU`,
    );
  });

  it("names this machine's cluster whose scheduler holds the taken port", () => {
    const file = writeHostsYaml(
      tmp('check-held.yaml'),
      { ...info, hosts: [h0, h1] },
      { name: 'chk-held', security: 'none' },
    );
    const up = runCli(['up', file, '--detach'], {}, 120_000);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    try {
      const r = runCli(['check', file]);
      expect(r.code, r.stdout + r.stderr).toBe(1);
      expect(r.stdout).toContain(`ERROR ${h0.ip}: scheduler port 8786 is taken`);
      // Checked with the file it runs from: said as that, not "stop it".
      expect(r.stdout).toContain(
        'fix: it is this file\'s cluster "chk-held", running: check is for hosts before up (`sshcluster status --name chk-held` shows it',
      );
      const other = writeHostsYaml(
        tmp('check-other.yaml'),
        { ...info, hosts: [h0, h1] },
        { name: 'chk-other', security: 'none' },
      );
      expect(runCli(['check', other]).stdout).toContain(
        'fix: it is cluster "chk-held"\'s (sshcluster list): stop it with `sshcluster down --name chk-held`, or set scheduler_options.port',
      );
      // up of that other file fails on the port, and says whose it is.
      const second = runCli(['up', other, '--no-tui'], {}, 120_000);
      expect(second.code, second.stderr).toBe(1);
      expect(second.stderr).toContain('port already in use');
      expect(second.stderr).toContain(
        'hint: cluster "chk-held" of this machine runs its scheduler there (sshcluster status --name chk-held): stop it with sshcluster down --name chk-held, or set scheduler_options.port',
      );
    } finally {
      expect(runCli(['down', '--name', 'chk-held'], {}, 90_000).code).toBe(0);
    }
  });

  it('tests reachability with its own listener and stops it by PID when done', async () => {
    const file = writeHostsYaml(
      tmp('check-two.yaml'),
      { ...info, hosts: [h0, h1] },
      { scheduler_options: { port: 8799, dashboard_address: ':8798' } },
    );
    const r = runCli(['check', file]);
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toContain(`→ ${h0.ip}:8799 ok`);
    await sleep(200);
    expect(listeners()).toEqual([]);
    expect(
      runIn(h0, [
        '/usr/bin/python3',
        '-c',
        'import socket; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("",8799)); print("free")',
      ]).stdout.trim(),
    ).toBe('free');
  });

  it('refuses a bad host file with exit 2', () => {
    fs.writeFileSync(tmp('check-typo.yaml'), `hosts: [${h0.ip}, ${h1.ip}]\nremote_pyton: x\n`);
    const r = runCli(['check', tmp('check-typo.yaml')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('did you mean "remote_python"?');
  });
});
