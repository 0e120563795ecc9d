import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { getTestHosts } from './harness/context.js';
import { cmdlineOf } from './harness/proc.js';
import { mountsUnder } from './harness/dask-versions.js';
import { daskRole, nsPids, processesIn, runIn, setLink, writeHostsYaml } from './harness/netns-hosts.js';
import type { TestHost } from './harness/types.js';

const info = getTestHosts();

function ssh(host: TestHost, command: string) {
  return spawnSync(
    'ssh',
    [
      '-F',
      '/dev/null',
      '-i',
      info.clientKeyPath,
      '-p',
      String(host.port),
      '-o',
      `UserKnownHostsFile=${info.knownHostsPath}`,
      '-o',
      'StrictHostKeyChecking=yes',
      '-o',
      'BatchMode=yes',
      '-o',
      'IdentitiesOnly=yes',
      '-o',
      'ConnectTimeout=5',
      `root@${host.ip}`,
      command,
    ],
    { encoding: 'utf8', timeout: 20_000 },
  );
}

const canReach = (from: TestHost, to: TestHost) =>
  runIn(from, [
    '/usr/bin/python3',
    '-c',
    `import socket; socket.create_connection(("${to.ip}", ${to.port}), 2).close(); print("connected")`,
  ]);

describe('e2e harness', () => {
  it('made the requested number of distinct hosts', () => {
    expect(info.hosts.length).toBe(Number(process.env.SSHC_E2E_HOSTS ?? 5));
    expect(new Set(info.hosts.map((h) => h.ip)).size).toBe(info.hosts.length);
    expect(readFileSync(info.knownHostsPath, 'utf8').trim().split('\n')).toHaveLength(info.hosts.length);
  });

  it.each(getTestHosts().hosts.map((h) => [h.name, h] as const))(
    '%s: OpenSSH logs in with strict host keys and runs inside its namespace',
    (_, host) => {
      const r = ssh(host, 'cat /proc/net/dev >/dev/null; echo ok; echo "$SSH_CONNECTION"; ip -4 -o addr show');
      expect(r.stderr).not.toMatch(/warning|denied/i);
      expect(r.status).toBe(0);
      const [ok, connection] = r.stdout.split('\n');
      expect(ok).toBe('ok');
      // "client_ip client_port server_ip server_port": the sshd we meant answered.
      expect(connection?.split(' ').slice(2)).toEqual([host.ip, String(host.port)]);
      if (info.mode === 'netns') {
        // Its own address and no other: the session runs in the host's namespace, not the root one.
        expect(r.stdout).toContain(`inet ${host.ip}/`);
        for (const other of info.hosts.filter((o) => o !== host)) expect(r.stdout).not.toContain(`inet ${other.ip}/`);
        expect(r.stdout).not.toContain(`inet ${info.bridgeIp}/`);
      }
    },
  );

  it('host 1 reaches host 0 sshd from inside its namespace', () => {
    const [h0, h1] = info.hosts as [TestHost, TestHost];
    const r = canReach(h1, h0);
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe('connected');
  });

  it('nsPids lists the sshd of each host', () => {
    for (const host of info.hosts) {
      const pids = nsPids(host);
      expect(pids).toContain(host.sshdPid);
      expect(cmdlineOf(host.sshdPid).join(' ')).toContain('sshd');
      expect(processesIn(host).find((p) => p.pid === host.sshdPid)?.cmdline).toContain('sshd');
    }
  });

  it.runIf(info.mode === 'netns')('setLink cuts a host off and brings it back', () => {
    const [h0, h1] = info.hosts as [TestHost, TestHost];
    setLink(h1, 'down');
    try {
      expect(canReach(h1, h0).status).not.toBe(0);
    } finally {
      setLink(h1, 'up');
    }
    expect(canReach(h1, h0).stdout.trim()).toBe('connected');
    expect(ssh(h1, 'echo back').stdout.trim()).toBe('back');
  });

  it('writeHostsYaml writes a host file sshcluster can read', () => {
    const path = writeHostsYaml(join(info.dir, 'hosts.yaml'), info, {
      name: 'e2e',
      connect_options: { connect_timeout: '3s' },
    });
    const doc = parse(readFileSync(path, 'utf8'));
    expect(doc.connect_options).toEqual({
      username: 'root',
      identity_file: info.clientKeyPath,
      known_hosts: info.knownHostsPath,
      strict_host_key_checking: 'yes',
      connect_timeout: '3s',
    });
    expect(doc.remote_python).toBe(info.python);
    expect(doc.hosts).toHaveLength(info.hosts.length);
  });

  it('the 2024.12 interpreter runs over SSH as a tagged process of the host, its mounts only in its own namespace', async () => {
    const h0 = info.hosts[0]!;
    const py = info.pythons['2024.12'];
    const r = ssh(
      h0,
      `SSHCLUSTER_ID=harness-probe ${py} -c 'import time; time.sleep(120)' >/dev/null 2>&1 </dev/null & echo $!; ` +
        `${py} -c 'import distributed, os; print(distributed.__version__, os.path.isdir("${info.dir}"), os.path.exists("/proc/self/environ"))'`,
    );
    expect(r.status, r.stderr).toBe(0);
    const [pidLine, probe] = r.stdout.trim().split('\n');
    const pid = Number(pidLine);
    try {
      expect(probe).toMatch(/^2024\.12\.\d+\S* True True$/);
      // The same PID, environment and namespace membership as any process of the host.
      expect(nsPids(h0)).toContain(pid);
      expect(readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')).toContain('SSHCLUSTER_ID=harness-probe');
      expect(cmdlineOf(pid)).toEqual(['/usr/bin/python3', '-c', 'import time; time.sleep(120)']);
      // proc, /dev (with its submounts: /dev/shm, /dev/pts…) and /tmp, in its namespace only.
      const own = mountsUnder(info.trixieRoot, pid).map((m) => m.slice(info.trixieRoot.length));
      expect(own).toEqual(expect.arrayContaining(['/proc', '/dev', '/tmp']));
      expect(own.filter((m) => !['/proc', '/dev', '/tmp'].includes(m) && !m.startsWith('/dev/'))).toEqual([]);
      expect(mountsUnder(info.trixieRoot, h0.sshdPid)).toEqual([]);
      expect(mountsUnder(info.trixieRoot)).toEqual([]);
    } finally {
      process.kill(pid, 'SIGKILL');
    }
  });

  it('daskRole recognises scheduler and worker command lines but not shell wrappers', () => {
    expect(daskRole(['/usr/bin/python3', '-m', 'distributed.cli.dask_scheduler', '--port', '0'])).toBe('scheduler');
    expect(daskRole(['/usr/bin/python3', '/usr/bin/dask-worker', 'tcp://x:1'])).toBe('worker');
    expect(daskRole(['/usr/bin/python3', '/usr/bin/dask', 'worker', 'tcp://x:1'])).toBe('worker');
    expect(daskRole(['sh', '-c', 'exec python3 -m distributed.cli.dask_worker tcp://x:1'])).toBeUndefined();
  });
});
