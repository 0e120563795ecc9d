import { describe, expect, it } from 'vitest';
import { loadHostFile, parseHostFile } from '../../../src/config/load.js';
import { HOME, makeCtx, withSshConfig } from '../fixtures/config/ctx.js';

const DEFAULT_KEYS = [`${HOME}/.ssh/id_ed25519`, `${HOME}/.ssh/id_ecdsa`, `${HOME}/.ssh/id_rsa`];

describe('parseHostFile: defaults', () => {
  const spec = parseHostFile('hosts: [node0, node1, node2]\n', 'lab.yaml', makeCtx());

  it('names the cluster after the file and records its absolute path', () => {
    expect(spec.name).toBe('lab');
    expect(spec.source).toBe('/srv/proj/lab.yaml');
    expect(spec.local).toBe(false);
  });

  it('runs the scheduler on the first host and workers on the rest', () => {
    expect(spec.schedulerHost.name).toBe('node0');
    expect(spec.workerHosts.map((h) => h.name)).toEqual(['node1', 'node2']);
  });

  it('fills connect defaults', () => {
    expect(spec.workerHosts[0]!.connect).toEqual({
      alias: 'node1',
      hostname: 'node1',
      port: 22,
      username: 'alice',
      identityFiles: DEFAULT_KEYS,
      knownHosts: `${HOME}/.ssh/known_hosts`,
      strictHostKeyChecking: 'yes',
      connectTimeoutMs: 10_000,
      proxyJump: [],
    });
  });

  it('fills Dask-like scheduler and worker defaults', () => {
    expect(spec.schedulerOptions).toEqual({ port: 8786, dashboardAddress: '127.0.0.1:8787' });
    const h = spec.workerHosts[1]!;
    expect(h.workerOptions).toEqual({
      nthreads: 2,
      nworkers: 1,
      memoryLimit: 'auto',
      resources: {},
      nanny: true,
      deathTimeoutS: 60,
    });
    expect([h.remotePython, h.env, h.setup, h.maxWorkers]).toEqual(['auto', {}, [], 1]);
    expect(spec.adaptive).toBeUndefined();
  });
});

describe('parseHostFile: values and overrides', () => {
  it('reads every top-level section', () => {
    const spec = parseHostFile(
      `
name: lab2
remote_python: /opt/py/bin/python
env: {OMP_NUM_THREADS: 1, FLAG: true}
setup: source ~/venv/bin/activate
scheduler_options: {port: 9786, dashboard_address: 8790, host: 10.0.0.1, interface: eth0}
worker_options: {nthreads: 4, nworkers: 2, memory_limit: 4 GiB, resources: {GPU: 1}, nanny: no, death_timeout: 2m, interface: ib0}
connect_options: {connect_timeout: 500ms, strict_host_key_checking: accept-new, known_hosts: ./kh}
hosts: [a, b]
`,
      'dir/x.yml',
      makeCtx(),
    );
    expect(spec.name).toBe('lab2');
    expect(spec.schedulerOptions).toEqual({
      port: 9786,
      dashboardAddress: ':8790',
      host: '10.0.0.1',
      interface: 'eth0',
    });
    const b = spec.workerHosts[0]!;
    expect(b.remotePython).toBe('/opt/py/bin/python');
    expect(b.env).toEqual({ OMP_NUM_THREADS: '1', FLAG: 'true' });
    expect(b.setup).toEqual(['source ~/venv/bin/activate']);
    expect(b.workerOptions).toEqual({
      nthreads: 4,
      nworkers: 2,
      memoryLimit: '4GiB',
      resources: { GPU: 1 },
      nanny: false,
      deathTimeoutS: 120,
      interface: 'ib0',
    });
    expect(b.maxWorkers).toBe(2);
    expect(b.connect.connectTimeoutMs).toBe(500);
    expect(b.connect.strictHostKeyChecking).toBe('accept-new');
    expect(b.connect.knownHosts).toBe('/srv/proj/dir/kh');
  });

  it('merges per-host connect_options, worker_options and env key by key', () => {
    const spec = parseHostFile(
      `
connect_options: {username: top, port: 2200}
env: {A: "1", B: "2"}
setup: [echo top]
worker_options: {nthreads: 3, resources: {GPU: 1}}
hosts:
  - head
  - host: gpu1
    connect_options: {port: 2201}
    env: {B: "host", C: "3"}
    setup: [echo gpu]
    remote_python: python3.12
    worker_options: {resources: {GPU: 4}, nworkers: 2}
    max_workers: 5
  - plain
`,
      'lab.yaml',
      makeCtx(),
    );
    const [gpu, plain] = spec.workerHosts;
    expect(gpu!.connect.username).toBe('top');
    expect(gpu!.connect.port).toBe(2201);
    expect(gpu!.env).toEqual({ A: '1', B: 'host', C: '3' });
    expect(gpu!.setup).toEqual(['echo gpu']);
    expect(gpu!.remotePython).toBe('python3.12');
    expect(gpu!.workerOptions).toMatchObject({ nthreads: 3, nworkers: 2, resources: { GPU: 4 } });
    expect(gpu!.maxWorkers).toBe(5);
    expect(plain!.connect.port).toBe(2200);
    expect(plain!.setup).toEqual(['echo top']);
    expect(plain!.workerOptions).toMatchObject({ nthreads: 3, nworkers: 1, resources: { GPU: 1 } });
  });

  it('expands ranges in strings and in a mapping host, sharing the overrides', () => {
    const spec = parseHostFile(
      `
hosts:
  - node[00-01]
  - {host: "gpu[1-2,5]", max_workers: 3}
`,
      'lab.yaml',
      makeCtx(),
    );
    expect(spec.schedulerHost.name).toBe('node00');
    expect(spec.workerHosts.map((h) => [h.name, h.maxWorkers])).toEqual([
      ['node01', 1],
      ['gpu1', 3],
      ['gpu2', 3],
      ['gpu5', 3],
    ]);
  });

  it('takes user and port from "user@host:port"', () => {
    const spec = parseHostFile(
      'connect_options: {username: top, port: 2}\nhosts: [a, "bob@b:2222"]\n',
      'lab.yaml',
      makeCtx(),
    );
    expect(spec.workerHosts[0]!.connect).toMatchObject({ alias: 'b', hostname: 'b', username: 'bob', port: 2222 });
  });

  it('runs workers on the scheduler host when it is listed twice', () => {
    const spec = parseHostFile('hosts: [head, head, w1]\n', 'lab.yaml', makeCtx());
    expect(spec.schedulerHost.name).toBe('head');
    expect(spec.workerHosts.map((h) => h.name)).toEqual(['head', 'w1']);
  });

  it('honours scheduler_host, inside or outside the list', () => {
    const inside = parseHostFile('scheduler_host: b\nhosts: [a, b, c]\n', 'lab.yaml', makeCtx());
    expect(inside.schedulerHost.name).toBe('b');
    expect(inside.workerHosts.map((h) => h.name)).toEqual(['a', 'c']);
    const outside = parseHostFile('scheduler_host: ops@head:2022\nhosts: [a, b]\n', 'lab.yaml', makeCtx());
    expect(outside.schedulerHost.connect).toMatchObject({ alias: 'head', username: 'ops', port: 2022 });
    expect(outside.workerHosts.map((h) => h.name)).toEqual(['a', 'b']);
  });

  it('reads adaptive with Dask defaults and the worker slots as default maximum', () => {
    const spec = parseHostFile(
      'hosts: [a, b, {host: c, max_workers: 4}]\nadaptive: {minimum: 1}\n',
      'lab.yaml',
      makeCtx(),
    );
    expect(spec.adaptive).toEqual({ minimum: 1, maximum: 5, intervalMs: 1000, waitCount: 3, targetDurationMs: 5000 });
    const full = parseHostFile(
      `
hosts: [a, b]
adaptive: {maximum: .inf, interval: 2s, wait_count: 5, target_duration: 1m,
  minimum_cores: 2, maximum_cores: 64, minimum_memory: 1GiB, maximum_memory: 100 GiB}
`,
      'lab.yaml',
      makeCtx(),
    );
    expect(full.adaptive).toEqual({
      minimum: 0,
      maximum: Infinity,
      intervalMs: 2000,
      waitCount: 5,
      targetDurationMs: 60_000,
      minimumCores: 2,
      maximumCores: 64,
      minimumMemory: 2 ** 30,
      maximumMemory: 100 * 2 ** 30,
    });
  });
});

describe('connect options', () => {
  it.each([
    ['yes', 'yes'],
    ['no', 'no'],
    ['true', 'yes'],
    ['false', 'no'],
    ['"accept-new"', 'accept-new'],
  ])('strict_host_key_checking: %s → %s', (written, policy) => {
    const spec = parseHostFile(
      `connect_options: {strict_host_key_checking: ${written}}\nhosts: [a, b]\n`,
      'lab.yaml',
      makeCtx(),
    );
    expect(spec.workerHosts[0]!.connect.strictHostKeyChecking).toBe(policy);
  });

  it('uses the agent from SSH_AUTH_SOCK unless agent: false', () => {
    const ctx = makeCtx({}, { SSH_AUTH_SOCK: '/tmp/agent.sock' });
    expect(parseHostFile('hosts: [a, b]\n', 'l.yaml', ctx).workerHosts[0]!.connect.agent).toBe('/tmp/agent.sock');
    const off = parseHostFile('connect_options: {agent: false}\nhosts: [a, b]\n', 'l.yaml', ctx);
    expect(off.workerHosts[0]!.connect.agent).toBeUndefined();
    const own = parseHostFile('connect_options: {agent: ~/agent.sock}\nhosts: [a, b]\n', 'l.yaml', ctx);
    expect(own.workerHosts[0]!.connect.agent).toBe(`${HOME}/agent.sock`);
  });

  it('keeps secret sources, never values', () => {
    const spec = parseHostFile(
      'connect_options: {password: prompt, passphrase: {env: KEY_PASS}}\nhosts: [a, b]\n',
      'l.yaml',
      makeCtx(),
    );
    expect(spec.workerHosts[0]!.connect.password).toEqual({ kind: 'prompt' });
    expect(spec.workerHosts[0]!.connect.passphrase).toEqual({ kind: 'env', variable: 'KEY_PASS' });
  });

  it('expands ~ in identity_file, string or list', () => {
    const keys = makeCtx({ [`${HOME}/.ssh/lab`]: 'a key', [`${HOME}/k1`]: 'a key', '/abs/k2': 'a key' });
    const one = parseHostFile('connect_options: {identity_file: ~/.ssh/lab}\nhosts: [a, b]\n', 'l.yaml', keys);
    expect(one.workerHosts[0]!.connect.identityFiles).toEqual([`${HOME}/.ssh/lab`]);
    const two = parseHostFile('connect_options: {identity_file: [~/k1, /abs/k2]}\nhosts: [a, b]\n', 'l.yaml', keys);
    expect(two.workerHosts[0]!.connect.identityFiles).toEqual([`${HOME}/k1`, '/abs/k2']);
  });
});

describe('loadHostFile', () => {
  it('reads the file relative to cwd', () => {
    const ctx = makeCtx({ '/srv/proj/conf/rack.yaml': 'hosts: [a, b]\n' });
    const spec = loadHostFile('conf/rack.yaml', ctx);
    expect(spec.name).toBe('rack');
    expect(spec.source).toBe('/srv/proj/conf/rack.yaml');
  });

  it('reads ~/.ssh/config through ctx.readFile', () => {
    const ctx = withSshConfig('Host b\n  HostName b.example\n');
    ctx.readFile = ((orig) => (p: string) => (p === '/srv/proj/h.yaml' ? 'hosts: [a, b]\n' : orig(p)))(ctx.readFile);
    expect(loadHostFile('h.yaml', ctx).workerHosts[0]!.connect.hostname).toBe('b.example');
  });
});
