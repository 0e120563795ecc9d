// The scheduler's HTTP server as this machine sees it (issue 12, finding 3): the dashboard
// port every local user can reach forwards the dashboard for a browser but not the
// scheduler's API (its retire_workers has no authentication), while the owner reaches
// the whole API through a socket in the cluster's 0700 dir, and our own commands work.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { daskClient, runCli, STATE_HOME } from './cli-driver.js';
import { getTestHosts } from './harness/context.js';
import { daskProcessesIn, writeHostsYaml } from './harness/netns-hosts.js';

const info = getTestHosts();
const three = info.hosts.slice(0, 3);
const tmp = (name: string) => path.join(info.dir, name);
const env = { DASK_TEMPORARY_DIRECTORY: tmp('dask-scratch') };
const name = 'apifwd';
const clusterDir = path.join(STATE_HOME, 'sshcluster', name);
/** Another local user: the one the forward must not let drive the scheduler. */
const OTHER_USER = 'nobody';

interface Status {
  workers: { name: string; state: string; address: string | null }[];
}
const status = () => JSON.parse(runCli(['status', '--name', name, '--json']).stdout) as Status;
const running = () => status().workers.filter((w) => w.state === 'running');

/** curl as `user` (root when undefined); returns the HTTP status code, or the failure. */
function curl(args: string[], user?: string): { code: string; body: string; exit: number | null } {
  const out = tmp(`curl-body-${process.pid}`);
  fs.rmSync(out, { force: true });
  const argv = ['-s', '-m', '20', '-o', out, '-w', '%{http_code}', ...args];
  const r = user
    ? spawnSync('runuser', ['-u', user, '--', 'curl', ...argv], { encoding: 'utf8' })
    : spawnSync('curl', argv, { encoding: 'utf8' });
  const body = fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : '';
  return { code: r.stdout.trim(), body, exit: r.status };
}

/**
 * As the other user, on one connection: `GET /status` as a websocket handshake, then at once
 * `POST /api/v1/retire_workers`; prints all that came back before the port closed it.
 */
function pipelined(port: number, victim: string) {
  const body = JSON.stringify({ workers: [victim] });
  const requests =
    'GET /status HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
    'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n' +
    `POST /api/v1/retire_workers HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
  const script = [
    'import socket, sys',
    `s = socket.create_connection(("127.0.0.1", ${port}), timeout=20)`,
    `s.sendall(${JSON.stringify(requests)}.encode())`,
    'got = b""',
    'while True:',
    '    d = s.recv(65536)',
    '    if not d: break',
    '    got += d',
    'sys.stdout.write(got.decode("latin-1"))',
  ].join('\n');
  return spawnSync('runuser', ['-u', OTHER_USER, '--', '/usr/bin/python3', '-c', script], {
    encoding: 'utf8',
    timeout: 60_000,
  });
}

afterAll(() => {
  if (fs.existsSync(path.join(clusterDir, 'state.json'))) runCli(['down', '--name', name], {}, 90_000);
});

describe('the forwarded scheduler HTTP server', () => {
  it('refuses the API on the shared dashboard port, serves it to the owner on a socket, and our commands still work', async () => {
    // The other user writes curl's output into the test dir.
    fs.chmodSync(info.dir, 0o777);
    const file = writeHostsYaml(tmp(`${name}.yaml`), { ...info, hosts: three }, { env, name });
    const up = runCli(['up', file, '--detach'], {}, 120_000);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    const url = /dashboard: (http:\/\/127\.0\.0\.1:(\d+))\/status/.exec(up.stdout);
    expect(url, up.stdout).not.toBeNull();
    const base = url![1]!;
    const workers = running();
    expect(workers.length).toBe(2);
    const victim = workers[0]!.address!;

    // The attack from the review: another local user retires our worker through the port.
    const post = curl(
      [
        '-X',
        'POST',
        '-H',
        'Content-Type: application/json',
        '-d',
        JSON.stringify({ workers: [victim] }),
        `${base}/api/v1/retire_workers`,
      ],
      OTHER_USER,
    );
    expect(post.code, post.body).toBe('403');
    expect(curl([`${base}/api/v1/get_workers`], OTHER_USER).code).toBe('403');
    expect(curl([`${base}/api%2fv1/get_workers`], OTHER_USER).code).toBe('403');
    // A browser still gets the dashboard (or, without bokeh, Dask's page saying so).
    expect(curl([`${base}/status`], OTHER_USER).code).toBe('200');
    expect(curl([`${base}/health`], OTHER_USER)).toMatchObject({ code: '200', body: 'ok' });
    // Issue 33 #2: an upgrade the scheduler answers 200 (not 101) ends the connection, so a
    // request pipelined behind it never reaches the API.
    const smuggled = pipelined(Number(url![2]), victim);
    expect(smuggled.status, smuggled.stderr).toBe(0);
    expect(smuggled.stdout).toMatch(/^HTTP\/1\.1 200 /);
    expect(smuggled.stdout).toMatch(/\r\nConnection: close\r\n/i);
    expect(smuggled.stdout.match(/HTTP\/1\.1 \d{3} /g)).toHaveLength(1);
    expect(smuggled.stdout).not.toContain('"workers"');
    expect(running().map((w) => w.address)).toContain(victim);
    // Said in up's output where the user sees it: the port is not private.
    expect(up.stdout).toMatch(/every user of this machine can reach/);
    expect(daskClient(`tcp://${three[0]!.ip}:8786`, 'print(len(c.scheduler_info()["workers"]))').trim()).toBe('2');

    // The owner has the whole API on a socket in the 0700 cluster dir; nobody else does.
    const sock = path.join(clusterDir, 'http.sock');
    const st = fs.lstatSync(sock);
    expect(st.isSocket()).toBe(true);
    expect(st.mode & 0o777).toBe(0o600);
    expect(fs.statSync(clusterDir).mode & 0o777).toBe(0o700);
    const mine = curl(['--unix-socket', sock, 'http://scheduler/api/v1/get_workers']);
    expect(mine.code).toBe('200');
    expect(Object.keys((JSON.parse(mine.body) as { workers: unknown[] }).workers).length).toBe(2);
    fs.chmodSync(STATE_HOME, 0o755); // even with the parent open, the cluster dir is not
    const theirs = curl(['--unix-socket', sock, 'http://scheduler/api/v1/get_workers'], OTHER_USER);
    expect(theirs.code).toBe('000');

    // status, scale and adapt reach the API as before.
    expect(runCli(['scale', '1', '--name', name], {}, 120_000).code).toBe(0);
    expect(running().length).toBe(1);
    const adapt = runCli(['adapt', '--min', '1', '--max', '2', '--name', name], {}, 60_000);
    expect(adapt.code, adapt.stderr).toBe(0);
    const dry = runCli(['adapt', '--dry-run', '--name', name], {}, 60_000);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/target/);

    const down = runCli(['down', '--name', name], {}, 120_000);
    expect(down.code, down.stdout + down.stderr).toBe(0);
    expect(three.flatMap((h) => daskProcessesIn(h))).toEqual([]);
    expect(fs.existsSync(sock)).toBe(false);
  });
});
