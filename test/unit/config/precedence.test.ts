import { describe, expect, it } from 'vitest';
import { parseHostFile } from '../../../src/config/load.js';
import { HOME, configErrorOf, makeCtx, withSshConfig } from '../fixtures/config/ctx.js';

const SSH = `
Host n1
  HostName n1.internal
  User cfguser
  Port 2022
  IdentityFile ~/.ssh/n1_key
  IdentityFile keys/rel_key

Host bastion
  HostName bastion.example.org
  User jumper
  Port 2222
  IdentityFile ~/.ssh/bastion_key

Host inner
  HostName 10.0.0.2

Host behind
  ProxyJump bastion

Host outer
  HostName outer.example.org
  ProxyJump gate

Host gate
  HostName gate.example.org
  ProxyJump none

Host loop1
  ProxyJump loop2
Host loop2
  ProxyJump loop1
`;
// identity_file written in the host file must exist; ~/.ssh/config's IdentityFile need not.
const ctx = makeCtx({ [`${HOME}/.ssh/config`]: SSH, [`${HOME}/.ssh/top`]: 'a key' });
const load = (yaml: string) => parseHostFile(yaml, 'lab.yaml', ctx);
const worker = (yaml: string, i = 0) => load(yaml).workerHosts[i]!.connect;

describe('username, port and identity precedence', () => {
  it('uses ~/.ssh/config when the file says nothing', () => {
    expect(worker('hosts: [head, n1]')).toMatchObject({
      hostname: 'n1.internal',
      username: 'cfguser',
      port: 2022,
      identityFiles: [`${HOME}/.ssh/n1_key`, '/srv/proj/keys/rel_key'],
    });
  });

  it('puts top-level connect_options above ~/.ssh/config', () => {
    const c = worker('connect_options: {username: top, port: 2200, identity_file: ~/.ssh/top}\nhosts: [head, n1]');
    expect([c.username, c.port, c.identityFiles]).toEqual(['top', 2200, [`${HOME}/.ssh/top`]]);
    expect(c.hostname).toBe('n1.internal');
  });

  it('puts per-host connect_options above the top level, and inline user@host:port above both', () => {
    const yaml = `connect_options: {username: top, port: 2200}
hosts:
  - head
  - {host: n1, connect_options: {username: per, port: 2201}}
  - {host: "x@n2:2300", connect_options: {username: per, port: 2201}}
`;
    expect(load(yaml).workerHosts.map((h) => [h.connect.username, h.connect.port])).toEqual([
      ['per', 2201],
      ['x', 2300],
    ]);
  });

  it('falls back to the local user name and port 22', () => {
    expect(worker('hosts: [head, plain]')).toMatchObject({ username: 'alice', port: 22, hostname: 'plain' });
  });
});

describe('proxy_jump', () => {
  it('resolves each hop through ~/.ssh/config and inherits connect_options defaults', () => {
    const c = worker(`connect_options:
  username: top
  identity_file: ~/.ssh/top
  strict_host_key_checking: accept-new
  connect_timeout: 3s
  password: prompt
  passphrase: {env: PP}
  proxy_jump: bastion,carol@inner:2200
hosts: [head, n9]`);
    expect(c.proxyJump).toEqual([
      {
        alias: 'bastion',
        hostname: 'bastion.example.org',
        port: 2222,
        username: 'jumper',
        identityFiles: [`${HOME}/.ssh/bastion_key`],
        passphrase: { kind: 'env', variable: 'PP' },
        knownHosts: `${HOME}/.ssh/known_hosts`,
        strictHostKeyChecking: 'accept-new',
        connectTimeoutMs: 3000,
        proxyJump: [],
      },
      {
        alias: 'inner',
        hostname: '10.0.0.2',
        port: 2200,
        username: 'carol',
        identityFiles: [`${HOME}/.ssh/top`],
        passphrase: { kind: 'env', variable: 'PP' },
        knownHosts: `${HOME}/.ssh/known_hosts`,
        strictHostKeyChecking: 'accept-new',
        connectTimeoutMs: 3000,
        proxyJump: [],
      },
    ]);
    // The target keeps its own password; hops do not inherit it.
    expect(c.password).toEqual({ kind: 'prompt' });
    expect(c.proxyJump[0]!.password).toBeUndefined();
  });

  it('does not give a hop the target port', () => {
    const c = worker('connect_options: {port: 2200, proxy_jump: inner}\nhosts: [head, n9]');
    expect(c.port).toBe(2200);
    expect(c.proxyJump[0]!.port).toBe(22);
  });

  it('takes ProxyJump from ~/.ssh/config when the file has none', () => {
    expect(worker('hosts: [head, behind]').proxyJump.map((h) => h.hostname)).toEqual(['bastion.example.org']);
  });

  it('lets proxy_jump: none override ~/.ssh/config', () => {
    expect(worker('hosts: [head, {host: behind, connect_options: {proxy_jump: none}}]').proxyJump).toEqual([]);
  });

  it("follows the first hop's own ProxyJump", () => {
    const c = worker('connect_options: {proxy_jump: outer}\nhosts: [head, n9]');
    expect(c.proxyJump[0]!.hostname).toBe('outer.example.org');
    expect(c.proxyJump[0]!.proxyJump.map((h) => h.hostname)).toEqual(['gate.example.org']);
  });

  it('refuses a ProxyJump loop', () => {
    const err = configErrorOf(() => load('hosts: [head, loop1]'));
    expect(err.message).toBe('lab.yaml:1:15 hosts[1]: ProxyJump loop: loop1 -> loop2 -> loop1');
  });
});

describe('~/.ssh/config problems', () => {
  it('reports an unparsable ~/.ssh/config as a ConfigError', () => {
    const err = configErrorOf(() => parseHostFile('hosts: [a, b]', 'lab.yaml', withSshConfig('Match host\n')));
    expect(err.message).toBe(`${HOME}/.ssh/config: cannot parse ~/.ssh/config: Missing value for match criteria host`);
  });

  it('reports a bad Port at the host that uses it', () => {
    const err = configErrorOf(() =>
      parseHostFile('hosts:\n  - a\n  - b\n', 'lab.yaml', withSshConfig('Host b\n  Port x\n')),
    );
    expect(err.message).toBe('lab.yaml:3:5 hosts[1]: in ~/.ssh/config: bad Port "x" for b');
  });
});
