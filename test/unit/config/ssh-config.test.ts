import { describe, expect, it } from 'vitest';
import { resolveSshHost } from '../../../src/config/hosts/ssh-config.js';

const CONFIG = `
# global defaults come before any Host, and apply to all
ServerAliveInterval 30

Host gpu?
  HostName %h.gpu.example.org
  User gpuuser
  IdentityFile ~/.ssh/gpu_key

Host web-* !web-internal
  User webadmin
  Port 2200

Host bastion
  HostName bastion.example.org
  User jumper
  Port 2222
  ProxyJump none

Host db
  HostName 10.1.2.3
  ProxyJump bastion,bob@inner:2200

Host *.lab
  User labuser
  Port 2022

Host *
  User everyone
  Port 22
  IdentityFile ~/.ssh/id_default
  ProxyJump bastion
`;

describe('resolveSshHost', () => {
  it('returns the alias itself when there is no config', () => {
    expect(resolveSshHost('node1', undefined)).toEqual({ hostname: 'node1', identityFiles: [] });
    expect(resolveSshHost('node1', '')).toEqual({ hostname: 'node1', identityFiles: [] });
  });

  it('resolves HostName with %h, User and accumulates IdentityFile in order', () => {
    expect(resolveSshHost('gpu1', CONFIG)).toEqual({
      hostname: 'gpu1.gpu.example.org',
      user: 'gpuuser',
      port: 22,
      identityFiles: ['~/.ssh/gpu_key', '~/.ssh/id_default'],
      proxyJump: 'bastion',
    });
  });

  it('matches ? as exactly one character', () => {
    expect(resolveSshHost('gpu12', CONFIG).user).toBe('everyone');
    expect(resolveSshHost('gpu', CONFIG).user).toBe('everyone');
  });

  it('keeps the first value obtained (first match wins)', () => {
    const r = resolveSshHost('web-1', CONFIG);
    expect(r.user).toBe('webadmin');
    expect(r.port).toBe(2200);
  });

  it('skips a section whose negated pattern matches', () => {
    const r = resolveSshHost('web-internal', CONFIG);
    expect(r.user).toBe('everyone');
    expect(r.port).toBe(22);
  });

  it('treats ProxyJump none as no jump, and later Host * cannot add one', () => {
    expect(resolveSshHost('bastion', CONFIG)).toEqual({
      hostname: 'bastion.example.org',
      user: 'jumper',
      port: 2222,
      identityFiles: ['~/.ssh/id_default'],
    });
  });

  it('returns a ProxyJump chain as written', () => {
    expect(resolveSshHost('db', CONFIG).proxyJump).toBe('bastion,bob@inner:2200');
    expect(resolveSshHost('db', CONFIG).hostname).toBe('10.1.2.3');
  });

  it('matches * wildcards with suffixes', () => {
    const r = resolveSshHost('n1.lab', CONFIG);
    expect([r.user, r.port]).toEqual(['labuser', 2022]);
  });

  it('is case-insensitive for keywords and host names', () => {
    const r = resolveSshHost('GPU2', 'host gpu2\n  hostname G.example\n  USER u\n  port 23\n');
    expect(r).toEqual({ hostname: 'G.example', user: 'u', port: 23, identityFiles: [] });
  });

  it('applies Match all and Match host/originalhost, never Match exec', () => {
    const text = [
      'Match exec "exit 0"',
      '  User fromexec',
      'Match originalhost alias1',
      '  HostName real1',
      'Match host real1',
      '  Port 2201',
      'Match all',
      '  User fromall',
    ].join('\n');
    expect(resolveSshHost('alias1', text)).toEqual({
      hostname: 'real1',
      user: 'fromall',
      port: 2201,
      identityFiles: [],
    });
  });

  it('reports a bad Port', () => {
    expect(() => resolveSshHost('x', 'Host x\n  Port ssh\n')).toThrow(/bad Port "ssh"/);
  });
});
