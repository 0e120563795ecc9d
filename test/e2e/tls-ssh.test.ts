// TLS over SSH, the default: on 4 namespace hosts the scheduler listens on tls://, a
// client built from `sshcluster env` computes, a plain tcp:// client, a client of
// another cluster's CA and a raw TCP connection get nothing; no key material in ps
// (inside each namespace), logs, state or status; the hosts' files are 0600 in a 0700
// dir (never the client key); a re-adopting controller keeps the CA; the files are gone
// after `down` through the controller, after Ctrl-C, and after `down` from the state file.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { makeClusterCerts } from '../../src/tls/cert-authority.js';
import { writeCerts } from '../../src/tls/cert-store.js';
import { runCli, sleep, startCli, STATE_HOME } from './cli-driver.js';
import { clientPython, getTestHosts } from './harness/context.js';
import { daskProcessesIn, hostClusterFilesDir, runIn, writeHostsYaml } from './harness/netns-hosts.js';

const info = getTestHosts();
const four = info.hosts.slice(0, 4);
const tmp = (name: string) => path.join(info.dir, name);
const env = { DASK_TEMPORARY_DIRECTORY: tmp('dask-scratch-tls') };
const clusterDir = (name: string) => path.join(STATE_HOME, 'sshcluster', name);
const state = (name: string) =>
  JSON.parse(fs.readFileSync(path.join(clusterDir(name), 'state.json'), 'utf8')) as {
    clusterId: string;
    controller: { pid: number };
  };

function upDetached(name: string, hosts: typeof info.hosts): void {
  // No `security:` key: the default.
  const file = writeHostsYaml(tmp(`${name}.yaml`), { ...info, hosts }, { name, env, security: undefined });
  const r = runCli(['up', file, '--detach'], {}, 120_000);
  expect(r.code, r.stdout + r.stderr).toBe(0);
}

/** A client in the hosts' Dask version with these variables; its last line of output, and on
 * failure its stderr's end (a traceback's cause can sit above asyncio's shutdown messages). */
function client(code: string, vars: Record<string, string>): string {
  const r = spawnSync(clientPython(), ['-c', `from distributed import Client\n${code}`], {
    env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', ...vars },
    encoding: 'utf8',
    timeout: 90_000,
  });
  return (
    (r.stdout.trim().split('\n').at(-1) ?? '') + (r.status === 0 ? '' : ` (exit ${r.status}: ${r.stderr.slice(-3000)})`)
  );
}

function envVars(name: string): Record<string, string> {
  const r = runCli(['env', '--name', name, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).env as Record<string, string>;
}

/** Every byte a raw TCP peer gets for a line of text, until the server closes or 5 s pass. */
function rawAnswer(host: string, port: number): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const s = net.connect(port, host, () => s.write('GET / HTTP/1.0\r\n\r\n'));
    const done = () => (s.destroy(), resolve(Buffer.concat(chunks)));
    s.on('data', (d) => chunks.push(d));
    s.on('close', done);
    s.on('error', done);
    setTimeout(done, 5_000);
  });
}

const keyLines = (name: string) =>
  ['scheduler', 'worker', 'client']
    .flatMap((role) => fs.readFileSync(path.join(clusterDir(name), 'tls', `${role}-key.pem`), 'utf8').split('\n'))
    .filter((l) => l && !l.startsWith('-----'));

function everyFileBelow(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .map((f) => path.join(dir, f))
    .filter((f) => fs.statSync(f).isFile());
}

afterEach(() => {
  for (const name of ['tls4', 'tls2', 'tlsint'])
    if (fs.existsSync(path.join(clusterDir(name), 'state.json'))) runCli(['down', '--name', name], {}, 90_000);
});
afterAll(() => fs.rmSync(tmp('other-ca'), { recursive: true, force: true }));

describe('TLS over SSH (the default)', () => {
  it('computes over tls:// for its own clients only, shows no key, survives re-adoption, and down from the state file removes its files', async () => {
    upDetached('tls4', four);
    const vars = envVars('tls4');
    const address = `tls://${four[0]!.ip}:8786`;
    expect(vars.DASK_SCHEDULER_ADDRESS).toBe(address);
    expect(
      client(
        'c = Client(timeout=30)\nc.wait_for_workers(3, timeout=60)\nprint(sum(c.gather(c.map(lambda x: x * x, range(100)))), len(c.scheduler_info()["workers"]))',
        vars,
      ),
    ).toBe('328350 3');

    // Refused: plain TCP, another cluster's CA; a raw connection gets no Dask bytes.
    expect(
      client(
        `try:\n    Client("tcp://${four[0]!.ip}:8786", timeout=5)\n    print("CONNECTED")\nexcept Exception as e:\n    print("refused", type(e).__name__)`,
        {},
      ),
    ).toMatch(/^refused/);
    await writeCerts(
      tmp('other-ca'),
      await makeClusterCerts({ clusterName: 'other', clusterId: 'other', now: new Date() }),
    );
    const stranger = {
      ...vars,
      DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT: tmp('other-ca/client.pem'),
      DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY: tmp('other-ca/client-key.pem'),
    };
    expect(
      client(
        'try:\n    c = Client(timeout=5)\n    print("CONNECTED", c.submit(sum, [1]).result(timeout=5))\nexcept Exception as e:\n    print("refused", type(e).__name__)',
        stranger,
      ),
    ).toMatch(/^refused/);
    const raw = await rawAnswer(four[0]!.ip, 8786);
    expect(raw.length === 0 || raw[0] === 0x15, `raw answer: ${raw.toString('latin1').slice(0, 80)}`).toBe(true); // nothing, or a TLS alert

    // The hosts' files: 0600 in a 0700 dir, the CA and the roles' pairs, never the client key.
    const { clusterId } = state('tls4');
    const dir = hostClusterFilesDir(clusterId);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(fs.readdirSync(dir).sort()).toEqual([
      'ca.pem',
      'scheduler-key.pem',
      'scheduler.pem',
      'scheduler_demand.py',
      'scheduler_wait.py',
      'ssl_error_queue.py',
      'worker-key.pem',
      'worker.pem',
    ]);
    for (const f of fs.readdirSync(dir)) expect(fs.statSync(path.join(dir, f)).mode & 0o777).toBe(0o600);

    // No key material in ps (inside each namespace), status, state, logs, controller log.
    const secrets = keyLines('tls4');
    const where: Record<string, string> = {
      status: runCli(['status', '--name', 'tls4', '--json']).stdout,
      ...Object.fromEntries(
        everyFileBelow(clusterDir('tls4'))
          .filter((f) => !f.includes(`${path.sep}tls${path.sep}`))
          .map((f) => [f, fs.readFileSync(f, 'utf8')]),
      ),
      ...Object.fromEntries(four.map((h) => [`ps in ${h.ip}`, runIn(h, ['ps', '-eo', 'args']).stdout])),
    };
    expect(Object.keys(where).some((k) => k.endsWith('state.json'))).toBe(true);
    for (const [w, text] of Object.entries(where))
      expect(
        secrets.filter((l) => text.includes(l)),
        w,
      ).toEqual([]);
    expect(where[`ps in ${four[0]!.ip}`]).toContain(`--tls-key ${dir}/scheduler-key.pem`); // paths only

    // The controller killed: a new `up` re-adopts with the same CA and keeps computing.
    const ca = fs.readFileSync(path.join(clusterDir('tls4'), 'tls', 'ca.pem'), 'utf8');
    const before = four.map((h) =>
      daskProcessesIn(h)
        .map((p) => p.pid)
        .sort(),
    );
    process.kill(state('tls4').controller.pid, 'SIGKILL');
    upDetached('tls4', four);
    expect(fs.readFileSync(path.join(clusterDir('tls4'), 'tls', 'ca.pem'), 'utf8')).toBe(ca);
    expect(
      four.map((h) =>
        daskProcessesIn(h)
          .map((p) => p.pid)
          .sort(),
      ),
    ).toEqual(before);
    expect(client('c = Client(timeout=30)\nprint(c.submit(sum, [1, 2, 3]).result())', envVars('tls4'))).toBe('6');

    // Killed again: `down` works from the state file and takes the hosts' files too.
    const pid = state('tls4').controller.pid;
    process.kill(pid, 'SIGKILL');
    while (fs.existsSync(`/proc/${pid}`)) await sleep(100);
    const down = runCli(['down', '--name', 'tls4'], {}, 90_000);
    expect(down.code, down.stdout + down.stderr).toBe(0);
    expect(down.stdout).toContain('from the state file');
    expect(fs.existsSync(dir)).toBe(false);
    expect(fs.existsSync(path.join(clusterDir('tls4'), 'tls'))).toBe(false);
    expect(four.flatMap((h) => daskProcessesIn(h))).toEqual([]);
  });

  it('down through the controller removes the files from every host', () => {
    upDetached('tls2', four.slice(0, 2));
    const dir = hostClusterFilesDir(state('tls2').clusterId);
    expect(fs.readdirSync(dir)).toContain('worker-key.pem');
    const down = runCli(['down', '--name', 'tls2'], {}, 90_000);
    expect(down.code, down.stdout + down.stderr).toBe(0);
    expect(fs.existsSync(dir)).toBe(false);
  });

  it('Ctrl-C on a foreground up removes the files from every host', async () => {
    const file = writeHostsYaml(
      tmp('tlsint.yaml'),
      { ...info, hosts: four.slice(0, 2) },
      { name: 'tlsint', env, security: undefined },
    );
    const run = startCli(['up', file, '--no-tui']);
    await run.waitFor(/Cluster up: 1 worker\(s\)/);
    const dir = hostClusterFilesDir(state('tlsint').clusterId);
    expect(fs.readdirSync(dir)).toContain('worker-key.pem');
    run.child.kill('SIGINT');
    expect((await run.exited).code).toBe(0);
    expect(fs.existsSync(dir)).toBe(false);
  });
});
