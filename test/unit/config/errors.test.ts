import { describe, expect, it } from 'vitest';
import { parseHostFile } from '../../../src/config/load.js';
import { configErrorOf, makeCtx } from '../fixtures/config/ctx.js';

const fail = (yaml: string) => configErrorOf(() => parseHostFile(yaml, 'hosts.yaml', makeCtx()));

describe('config errors: position, key path, expectation', () => {
  it('points at an unknown key and suggests the near spelling', () => {
    const err = fail('hosts: [a, b]\nworkr_options:\n  nthreads: 2\n');
    expect(err.message).toBe('hosts.yaml:2:1 workr_options: unknown key "workr_options"');
    expect(err.hint).toBe('did you mean "worker_options"?');
    expect(err.exitCode).toBe(2);
    expect(err.position).toEqual({ file: 'hosts.yaml', line: 2, col: 1, keyPath: 'workr_options' });
  });

  it('suggests within nested sections and catches transpositions', () => {
    const err = fail('hosts: [a, b]\nconnect_options:\n  usernmae: bob\n');
    expect(err.message).toBe('hosts.yaml:3:3 connect_options.usernmae: unknown key "usernmae"');
    expect(err.hint).toBe('did you mean "username"?');
  });

  it('says which section a misplaced key belongs to', () => {
    const err = fail('hosts:\n  - a\n  - host: b\n    port: 2222\n');
    expect(err.message).toBe('hosts.yaml:4:5 hosts[1].port: unknown key "port"');
    expect(err.hint).toBe('"port" belongs under connect_options');
  });

  it('suggests the near key of the same level before a key of another section', () => {
    const err = fail('host: [a, b]\n');
    expect(err.message).toBe('hosts.yaml:1:1 host: unknown key "host"');
    expect(err.hint).toBe('did you mean "hosts"? (or scheduler_options.host)');
  });

  it('lists the valid keys when nothing is close', () => {
    const err = fail('hosts: [a, b]\nscheduler_options: {zzzzzz: 1}\n');
    expect(err.hint).toBe('expected one of port, dashboard_address, host, interface');
  });

  it('points at the value of a wrongly typed key', () => {
    const err = fail('hosts:\n  - a\n  - b\n  - host: c\n    connect_options: {port: twenty}\n');
    expect(err.message).toBe(
      'hosts.yaml:5:29 hosts[2].connect_options.port: expected a whole number from 1 to 65535, got "twenty"',
    );
  });

  it.each([
    [
      'worker_options: {nthreads: "4"}',
      'hosts.yaml:1:28 worker_options.nthreads: expected a whole number >= 1, got "4"',
    ],
    ['worker_options: {nanny: maybe}', 'hosts.yaml:1:25 worker_options.nanny: expected true or false, got "maybe"'],
    [
      'worker_options: {memory_limit: lots}',
      'hosts.yaml:1:32 worker_options.memory_limit: expected a size like "4GiB", "100 GB", "512MiB" or a number of bytes',
    ],
    [
      'connect_options: {connect_timeout: soon}',
      'hosts.yaml:1:36 connect_options.connect_timeout: expected a duration like "10s", "500ms", "2m" or a number of seconds',
    ],
    [
      'connect_options: {connect_timeout: 0}',
      'hosts.yaml:1:36 connect_options.connect_timeout: expected a duration greater than zero',
    ],
    ['env: {"BAD-NAME": 1}', 'hosts.yaml:1:7 env.BAD-NAME: expected an environment variable name (letters, digits, _)'],
    ['setup: {a: 1}', 'hosts.yaml:1:8 setup: expected a string or a list of strings, got a mapping'],
    ['name: "my lab"', 'hosts.yaml:1:7 name: expected a name of letters, digits, ".", "_" or "-"'],
    ['adaptive: {minimum: 5, maximum: 2}', 'hosts.yaml:1:33 adaptive.maximum: expected a value >= minimum (5)'],
    ['adaptive: {wait_count: 0}', 'hosts.yaml:1:24 adaptive.wait_count: expected a whole number >= 1, got 0'],
    ['connect_options: [a]', 'hosts.yaml:1:18 connect_options: expected a mapping (key: value), got a list'],
    ['remote_python: ""', 'hosts.yaml:1:16 remote_python: expected a non-empty string'],
  ])('%s', (line, message) => {
    expect(fail(`${line}\nhosts: [a, b]\n`).message).toBe(message);
  });

  // Each reaches a setTimeout or Dask; Node fires a timer past 2^31-1 ms at once, with a warning.
  it.each([
    ['connect_options: {connect_timeout: 1e9}', 'hosts.yaml:1:36 connect_options.connect_timeout'],
    ['worker_options: {death_timeout: 25d}', 'hosts.yaml:1:33 worker_options.death_timeout'],
    ['adaptive: {interval: 2147483648ms}', 'hosts.yaml:1:22 adaptive.interval'],
    ['adaptive: {target_duration: 1e9}', 'hosts.yaml:1:29 adaptive.target_duration'],
  ])('refuses a duration longer than a timer can wait: %s', (line, at) => {
    const err = fail(`${line}\nhosts: [a, b]\n`);
    expect(err.message).toBe(`${at}: expected at most 2147483647ms (24.8 days), the longest a timer can wait`);
    expect(err.exitCode).toBe(2);
  });

  it('takes the longest duration a timer can wait', () => {
    const spec = parseHostFile(
      'connect_options: {connect_timeout: 2147483647ms}\nadaptive: {interval: 24d}\nhosts: [a, b]\n',
      'hosts.yaml',
      makeCtx(),
    );
    expect(spec.workerHosts[0]!.connect.connectTimeoutMs).toBe(2 ** 31 - 1);
    expect(spec.adaptive?.intervalMs).toBe(24 * 86_400_000);
  });

  // Found by the h43trial trial: each was taken, then failed at `up` (a Python traceback
  // from the scheduler, or the dashboard silently on 8787), and `check` blamed the port on
  // "what listens there" (its own probe of the scheduler port).
  it.each([
    [
      'scheduler_options: {dashboard_address: "8786"}',
      "hosts.yaml:1:40 scheduler_options.dashboard_address: expected a port other than the scheduler's (8786): both cannot listen on it",
    ],
    [
      'scheduler_options: {port: 9000, dashboard_address: "127.0.0.1:9000"}',
      "hosts.yaml:1:52 scheduler_options.dashboard_address: expected a port other than the scheduler's (9000): both cannot listen on it",
    ],
    [
      'scheduler_options: {dashboard_address: dashboard}',
      'hosts.yaml:1:40 scheduler_options.dashboard_address: expected an address like ":8787" or "127.0.0.1:8787", got "dashboard"',
    ],
    [
      'scheduler_options: {dashboard_address: ":99999"}',
      'hosts.yaml:1:40 scheduler_options.dashboard_address: expected an address like ":8787" or "127.0.0.1:8787", got ":99999"',
    ],
  ])('refuses a dashboard address the scheduler cannot listen on: %s', (line, message) => {
    const err = fail(`${line}\nhosts: [a, b]\n`);
    expect(err.message).toBe(message);
    expect(err.exitCode).toBe(2);
  });

  it('names the allowed values of an enum', () => {
    const err = fail('hosts: [a, b]\nconnect_options:\n  strict_host_key_checking: ask\n');
    expect(err.message).toBe(
      'hosts.yaml:3:29 connect_options.strict_host_key_checking: expected one of yes, accept-new, no, got "ask"',
    );
  });
});

describe('config errors: secrets', () => {
  it.each(['password', 'passphrase'])('refuses a literal %s without echoing it', (key) => {
    const err = fail(`hosts: [a, b]\nconnect_options:\n  ${key}: "s3cr3t-Value"\n`);
    const col = `  ${key}: `.length + 1;
    expect(err.message).toBe(
      `hosts.yaml:3:${col} connect_options.${key}: a literal ${key} is not allowed in a host file (secrets do not belong in config files)`,
    );
    expect(err.hint).toBe(`use "${key}: prompt" or "${key}: {env: VAR_NAME}"`);
    expect(`${err.message} ${err.hint} ${err.stack}`).not.toContain('s3cr3t');
  });

  it('refuses a numeric password without echoing it', () => {
    const err = fail('hosts:\n  - a\n  - {host: b, connect_options: {password: 918273}}\n');
    expect(err.position.keyPath).toBe('hosts[1].connect_options.password');
    expect(`${err.message} ${err.hint}`).not.toContain('918273');
  });

  it('does not echo a secret on a YAML syntax error', () => {
    const err = fail('hosts: [a, b]\nconnect_options:\n  password: "s3cr3t\n');
    expect(`${err.message} ${err.hint}`).not.toContain('s3cr3t');
  });

  it('checks the variable name of {env: ...}', () => {
    const err = fail('hosts: [a, b]\nconnect_options: {password: {env: "1X"}}\n');
    expect(err.message).toBe(
      'hosts.yaml:2:35 connect_options.password.env: expected an environment variable name (letters, digits, _)',
    );
  });
});

describe('config errors: hosts', () => {
  it('refuses a duplicate host after range expansion', () => {
    const err = fail('hosts:\n  - head\n  - node[01-03]\n  - node02\n');
    expect(err.message).toBe('hosts.yaml:4:5 hosts[2]: duplicate host "node02" (already listed at hosts[1], line 3)');
  });

  it('allows the scheduler host twice but not three times', () => {
    expect(() => parseHostFile('hosts: [a, a, b]\n', 'h.yaml', makeCtx())).not.toThrow();
    expect(fail('hosts: [a, a, a]\n').detail).toBe('duplicate host "a" (already listed at hosts[1], line 1)');
  });

  // helper-23's trial: worker_options on the scheduler's first listing were dropped without a word.
  it('refuses worker settings on the listing that runs the scheduler, pointing at the other listing or saying how to add one', () => {
    const twice = fail('hosts:\n  - host: a\n    worker_options: {nthreads: 8}\n  - a\n  - b\n');
    expect(twice.message).toBe(
      'hosts.yaml:3:21 hosts[0].worker_options: worker_options here applies to no worker: this listing of "a" runs the scheduler',
    );
    expect(twice.hint).toBe(
      'its workers take their settings from its other listing (hosts[1], line 4): move worker_options there',
    );
    expect(twice.exitCode).toBe(2);
    const once = fail('hosts:\n  - {host: a, max_workers: 3}\n  - b\n');
    expect(once.message).toBe(
      'hosts.yaml:2:28 hosts[0].max_workers: max_workers here applies to no worker: this listing of "a" runs the scheduler',
    );
    expect(once.hint).toBe(
      "as in Dask's SSHCluster the scheduler's host runs no workers; to run some there, list it again with them: hosts: [a, {host: a, max_workers: ...}, ...]",
    );
    // A range's settings serve its other hosts; the second listing's are the workers'.
    expect(() =>
      parseHostFile('hosts:\n  - host: n[1-3]\n    worker_options: {nthreads: 8}\n', 'h.yaml', makeCtx()),
    ).not.toThrow();
    expect(() =>
      parseHostFile('hosts:\n  - a\n  - {host: a, worker_options: {nthreads: 8}}\n', 'h.yaml', makeCtx()),
    ).not.toThrow();
  });

  it('reports a bad range at the host', () => {
    const err = fail('hosts:\n  - head\n  - node[09-02]\n');
    expect(err.message).toBe('hosts.yaml:3:5 hosts[1]: reversed range "09-02" in "node[09-02]": 09 is greater than 02');
  });

  it('reports a bad range inside a mapping at its host key value', () => {
    const err = fail('hosts:\n  - head\n  - {host: "n[1-"}\n');
    expect(err.message).toBe('hosts.yaml:3:12 hosts[1].host: unclosed "[" in "n[1-"');
  });

  it('reports YAML syntax errors with the parser position', () => {
    const err = fail('hosts: [a, b\nname: x\n');
    expect(err.message).toMatch(/^hosts\.yaml:2:1: invalid YAML: /);
  });

  it('says where an unclosed [ or { opened: YAML notices it only where the next line starts', () => {
    const err = fail('hosts:\n  - host: a\n    resources: {GPU: 1\n  - host: b\n');
    expect(err.message).toMatch(/^hosts\.yaml:4:3: invalid YAML: Flow map in block collection/);
    expect(err.hint).toBe('the { opened at line 3, column 16 is not closed');
    // Brackets in quotes and comments are not counted.
    const quoted = fail('# a [ comment\nhosts:\n  - host: "a[1"\n    args: [\'x{\', 1\n  - host: b\n');
    expect(quoted.hint).toBe('the [ opened at line 4, column 11 is not closed');
  });

  it('reports a duplicate key as a YAML error', () => {
    // helper-26's trial: YAML's message named neither the key nor where it was first.
    const dup = fail('hosts: [a, b]\nhosts: [c]\n');
    expect([dup.message, dup.hint]).toEqual([
      'hosts.yaml:2:1: invalid YAML: "hosts" appears twice in the same mapping (first at line 1)',
      'keep one "hosts"',
    ]);
    expect(fail('hosts: [a]\nworker_options:\n  nthreads: 2\n  memory_limit: 1GB\n  nthreads: 3\n').message).toBe(
      'hosts.yaml:5:3: invalid YAML: "nthreads" appears twice in the same mapping (first at line 3)',
    );
    expect(fail('hosts: [a]\nworker_options: {nthreads: 1, nthreads: 2}\n').message).toBe(
      'hosts.yaml:2:31: invalid YAML: "nthreads" appears twice in the same mapping',
    );
  });

  it.each([
    ['', 'hosts.yaml:1:1: the host file is empty; expected a mapping with a "hosts" list'],
    ['# nothing\n', 'hosts.yaml:1:1: the host file is empty; expected a mapping with a "hosts" list'],
    ['name: x\n', 'hosts.yaml:1:1 hosts: no hosts: expected a non-empty "hosts" list'],
    ['name: x\nhosts:\n', 'hosts.yaml:2:7 hosts: no hosts: expected a non-empty "hosts" list'],
    ['hosts: []\n', 'hosts.yaml:1:8 hosts: no hosts: expected at least one host'],
    ['hosts: node1\n', 'hosts.yaml:1:8 hosts: expected a list of hosts, got "node1"'],
    ['- a\n- b\n', 'hosts.yaml:1:1: expected a mapping with a "hosts" key'],
  ])('refuses %j', (yaml, message) => {
    expect(fail(yaml).message).toBe(message);
  });

  it('refuses a single host that only runs the scheduler', () => {
    const err = fail('hosts: [solo]\n');
    expect(err.message).toBe(
      'hosts.yaml:1:9 hosts: only one host ("solo"), and it runs the scheduler: no host is left for workers',
    );
    expect(err.hint).toBe('list it twice to run workers on it too: hosts: [solo, solo]');
  });

  it('refuses a mapping entry without host, and max_workers below nworkers', () => {
    expect(fail('hosts: [a, {max_workers: 2}]\n').message).toBe(
      'hosts.yaml:1:12 hosts[1]: missing "host": expected {host: NAME, ...}',
    );
    expect(fail('worker_options: {nworkers: 3}\nhosts: [a, {host: b, max_workers: 2}]\n').message).toBe(
      'hosts.yaml:2:35 hosts[1].max_workers: expected a number >= worker_options.nworkers (3)',
    );
  });

  it('refuses an adaptive minimum above the worker slots', () => {
    expect(fail('hosts: [a, b, c]\nadaptive: {minimum: 3}\n').message).toBe(
      'hosts.yaml:2:21 adaptive.minimum: expected at most 2, the number of worker slots (sum of max_workers)',
    );
  });

  it('reports an unreadable host file with exit code 2', async () => {
    const { loadHostFile } = await import('../../../src/config/load.js');
    const err = configErrorOf(() => loadHostFile('missing.yaml', makeCtx()));
    expect(err.message).toMatch(/^missing\.yaml: cannot read the host file: ENOENT/);
    expect(err.exitCode).toBe(2);
    // How to fix it too (helper-27: there was no hint).
    expect(err.hint).toMatch(
      /^no file at \/.*missing\.yaml: give the path of your host file \(config\.example\.yaml shows one\); without one, sshcluster up starts a local cluster$/,
    );
  });
});
