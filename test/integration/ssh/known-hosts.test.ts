import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkHostKey,
  fingerprint,
  formatKnownHostsLine,
  hostFieldMatches,
  keyTypeOfBlob,
  knownKeyTypes,
} from '../../../src/ssh/known-hosts.js';

let dir: string;
interface Key {
  type: string;
  b64: string;
  blob: Buffer;
  pubFile: string;
}
let k1: Key;
let k2: Key;
let rsa: Key;

function genKey(name: string, type = 'ed25519'): Key {
  const file = join(dir, name);
  execFileSync('ssh-keygen', ['-q', '-t', type, '-N', '', '-C', name, '-f', file]);
  const [keyType, b64] = readFileSync(`${file}.pub`, 'utf8').trim().split(' ');
  return { type: keyType!, b64: b64!, blob: Buffer.from(b64!, 'base64'), pubFile: `${file}.pub` };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ssh-kh-'));
  k1 = genKey('k1');
  k2 = genKey('k2');
  rsa = genKey('rsa', 'rsa');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('fingerprint', () => {
  it('equals ssh-keygen -lf', () => {
    for (const k of [k1, rsa]) {
      const out = execFileSync('ssh-keygen', ['-lf', k.pubFile], { encoding: 'utf8' });
      expect(out.split(' ')[1]).toBe(fingerprint(k.blob));
    }
  });
  it('reads the key type from the blob', () => {
    expect(keyTypeOfBlob(k1.blob)).toBe('ssh-ed25519');
    expect(keyTypeOfBlob(rsa.blob)).toBe('ssh-rsa');
  });
});

describe('checkHostKey with plain entries', () => {
  const text = (): string =>
    [
      '# a comment',
      '',
      `node1,10.0.0.1 ${k1.type} ${k1.b64} alice@laptop`,
      `[node2]:2222 ${k1.type} ${k1.b64}`,
      `*.lab,!bad.lab ${k2.type} ${k2.b64}`,
      `node3 ${rsa.type} ${rsa.b64}`,
    ].join('\n');

  it('matches a listed host and an alternate name', () => {
    expect(checkHostKey(text(), 'node1', 22, 'ssh-ed25519', k1.blob)).toEqual({ status: 'match' });
    expect(checkHostKey(text(), '10.0.0.1', 22, 'ssh-ed25519', k1.blob)).toEqual({ status: 'match' });
    expect(checkHostKey(text(), 'NODE1', 22, 'ssh-ed25519', k1.blob)).toEqual({ status: 'match' });
  });
  it('uses [host]:port for non-22 ports', () => {
    expect(checkHostKey(text(), 'node2', 2222, 'ssh-ed25519', k1.blob)).toEqual({ status: 'match' });
    expect(checkHostKey(text(), 'node2', 22, 'ssh-ed25519', k1.blob)).toEqual({ status: 'unknown' });
    expect(checkHostKey(text(), 'node1', 2222, 'ssh-ed25519', k1.blob)).toEqual({ status: 'unknown' });
  });
  it('honours wildcards and negation', () => {
    expect(checkHostKey(text(), 'a.lab', 22, 'ssh-ed25519', k2.blob).status).toBe('match');
    expect(checkHostKey(text(), 'bad.lab', 22, 'ssh-ed25519', k2.blob).status).toBe('unknown');
    expect(hostFieldMatches('node?', 'node7')).toBe(true);
    expect(hostFieldMatches('node?', 'node77')).toBe(false);
  });
  it('reports a different key of the same type as a mismatch with the expected fingerprint', () => {
    const r = checkHostKey(text(), 'node1', 22, 'ssh-ed25519', k2.blob);
    expect(r).toEqual({ status: 'mismatch', expectedFingerprints: [fingerprint(k1.blob)] });
  });
  it('treats an unknown key type as unknown and lists known types', () => {
    expect(checkHostKey(text(), 'node3', 22, 'ssh-ed25519', k1.blob)).toEqual({ status: 'unknown' });
    expect(knownKeyTypes(text(), 'node3', 22)).toEqual(['ssh-rsa']);
  });
});

describe('markers', () => {
  it('treats @revoked as a mismatch and ignores @cert-authority', () => {
    const text = [
      `@revoked * ${k2.type} ${k2.b64}`,
      `@cert-authority *.lab ${k1.type} ${k1.b64}`,
      `node1 ${k1.type} ${k1.b64}`,
    ].join('\n');
    expect(checkHostKey(text, 'node1', 22, 'ssh-ed25519', k2.blob)).toEqual({
      status: 'mismatch',
      expectedFingerprints: [fingerprint(k1.blob)],
    });
    expect(checkHostKey(text, 'x.lab', 22, 'ssh-ed25519', k1.blob)).toEqual({ status: 'unknown' });
  });
});

describe('hashed entries', () => {
  it('matches entries hashed by ssh-keygen -H, including [host]:port', () => {
    const file = join(dir, 'known_hosts');
    writeFileSync(
      file,
      [
        formatKnownHostsLine('node1', 22, k1.type, k1.blob),
        formatKnownHostsLine('node2', 2222, k2.type, k2.blob),
        '',
      ].join('\n'),
    );
    execFileSync('ssh-keygen', ['-H', '-f', file], { stdio: 'ignore' });
    const hashed = readFileSync(file, 'utf8');
    expect(hashed).toContain('|1|');
    expect(hashed).not.toContain('node1');
    expect(checkHostKey(hashed, 'node1', 22, 'ssh-ed25519', k1.blob)).toEqual({ status: 'match' });
    expect(checkHostKey(hashed, 'node2', 2222, 'ssh-ed25519', k2.blob)).toEqual({ status: 'match' });
    expect(checkHostKey(hashed, 'node2', 22, 'ssh-ed25519', k2.blob)).toEqual({ status: 'unknown' });
    expect(checkHostKey(hashed, 'node1', 22, 'ssh-ed25519', k2.blob)).toEqual({
      status: 'mismatch',
      expectedFingerprints: [fingerprint(k1.blob)],
    });
  });
  it('writes lines ssh-keygen -F finds', () => {
    const file = join(dir, 'kh2');
    writeFileSync(file, `${formatKnownHostsLine('node9', 2200, k1.type, k1.blob)}\n`);
    const out = execFileSync('ssh-keygen', ['-F', '[node9]:2200', '-f', file], { encoding: 'utf8' });
    expect(out).toContain(k1.b64);
  });
});
