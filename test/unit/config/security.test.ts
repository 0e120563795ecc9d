// `security:` in the host file: TLS by default for SSH clusters, `none` to opt out, or
// the user's own certificates, checked (readable, PEM) at their line before anything starts.
import { describe, expect, it } from 'vitest';
import { localClusterSpec } from '../../../src/config/local.js';
import { parseHostFile } from '../../../src/config/load.js';
import { configErrorOf, HOME, makeCtx } from '../fixtures/config/ctx.js';

const CERT = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const KEY = '-----BEGIN PRIVATE KEY-----\nMIGH\n-----END PRIVATE KEY-----\n';
const FILES: Record<string, string> = {
  '/srv/proj/pki/ca.pem': CERT,
  [`${HOME}/pki/s.pem`]: CERT,
  [`${HOME}/pki/s.key`]: KEY,
  '/etc/pki/w.pem': CERT,
  '/etc/pki/w.key': KEY,
  '/srv/proj/c.pem': CERT,
  '/srv/proj/c.key': KEY,
};
const OWN = [
  'security:',
  '  ca_file: pki/ca.pem',
  '  scheduler: {cert: ~/pki/s.pem, key: ~/pki/s.key}',
  '  worker: {cert: /etc/pki/w.pem, key: /etc/pki/w.key}',
  '  client: {cert: c.pem, key: c.key}',
];

const load = (lines: string[], files = FILES) =>
  parseHostFile([...lines, 'hosts: [a, b]', ''].join('\n'), 'hosts.yaml', makeCtx(files));
const fail = (lines: string[], files = FILES) => configErrorOf(() => load(lines, files));

describe('security in the host file', () => {
  it('is TLS with a cluster CA when not set', () => {
    expect(load([]).security).toEqual({ kind: 'tls' });
  });

  it.each([
    ['none', 'none'],
    ['false', 'none'],
    ['tls', 'tls'],
    ['true', 'tls'],
  ])('security: %s', (value, kind) => {
    expect(load([`security: ${value}`]).security).toEqual({ kind });
  });

  it("takes the user's own files, resolved like identity_file (relative to the host file, ~ expanded)", () => {
    expect(load(OWN).security).toEqual({
      kind: 'tls',
      files: {
        caFile: '/srv/proj/pki/ca.pem',
        scheduler: { cert: `${HOME}/pki/s.pem`, key: `${HOME}/pki/s.key` },
        worker: { cert: '/etc/pki/w.pem', key: '/etc/pki/w.key' },
        client: { cert: '/srv/proj/c.pem', key: '/srv/proj/c.key' },
      },
    });
  });

  it('refuses another word, with the accepted forms', () => {
    const err = fail(['security: ssl']);
    expect(err.message).toBe(
      'hosts.yaml:1:11 security: expected "tls", "none", or {ca_file, scheduler: {cert, key}, worker: {cert, key}, client: {cert, key}}',
    );
    expect(err.exitCode).toBe(2);
  });

  it('suggests the spelling of a mistyped key', () => {
    const err = fail(['security:', '  ca_fil: x.pem']);
    expect(err.message).toBe('hosts.yaml:2:3 security.ca_fil: unknown key "ca_fil"');
    expect(err.hint).toBe('did you mean "ca_file"?');
  });

  it('says which role is missing', () => {
    const err = fail(OWN.slice(0, 4));
    expect(err.message).toMatch(/^hosts\.yaml:2:3 security: missing "client"/);
  });

  it('says which half of a pair is missing', () => {
    const err = fail([...OWN.slice(0, 4), '  client: {cert: c.pem}']);
    expect(err.message).toBe('hosts.yaml:5:11 security.client: missing "key": expected {cert: PATH, key: PATH}');
  });

  it('points at a file that cannot be read', () => {
    const files = { ...FILES };
    delete files['/etc/pki/w.key'];
    const err = fail(OWN, files);
    expect(err.message).toMatch(/^hosts\.yaml:4:39 security\.worker\.key: cannot read \/etc\/pki\/w\.key: ENOENT/);
  });

  it('points at a key given as a certificate (and never quotes the file)', () => {
    const err = fail(OWN, { ...FILES, '/srv/proj/c.pem': KEY });
    expect(err.message).toBe('hosts.yaml:5:18 security.client.cert: /srv/proj/c.pem is not a PEM certificate');
    expect(err.message).not.toContain('MIGH');
  });
});

describe('security of the local cluster', () => {
  const base = { cores: 2, memoryBytes: 0, python: 'python3' };
  it('is plain TCP on loopback unless asked for', () => {
    expect(localClusterSpec(base).security).toEqual({ kind: 'none' });
    expect(localClusterSpec({ ...base, tls: true }).security).toEqual({ kind: 'tls' });
  });
});
