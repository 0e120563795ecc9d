// OpenSSH known_hosts: plain and hashed host patterns, [host]:port, wildcards and
// markers. Pure: callers read the file and hand over its text.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export type HostKeyCheck =
  { status: 'match' } | { status: 'unknown' } | { status: 'mismatch'; expectedFingerprints: string[] };

interface KnownHostEntry {
  marker?: 'revoked' | 'cert-authority';
  hosts: string;
  keyType: string;
  keyBlob: Buffer;
}

/** `SHA256:<base64 without padding>`, the format of `ssh-keygen -l`. */
export function fingerprint(keyBlob: Buffer): string {
  const digest = createHash('sha256').update(keyBlob).digest('base64');
  return `SHA256:${digest.replace(/=+$/, '')}`;
}

/** The name OpenSSH looks up: `host` on port 22, `[host]:port` otherwise. */
export function hostLookupName(host: string, port: number): string {
  const h = host.toLowerCase();
  return port === 22 ? h : `[${h}]:${port}`;
}

export function formatKnownHostsLine(host: string, port: number, keyType: string, keyBlob: Buffer): string {
  return `${hostLookupName(host, port)} ${keyType} ${keyBlob.toString('base64')}`;
}

/** The key type string inside an SSH wire-format public key blob ("ssh-ed25519" …). */
export function keyTypeOfBlob(keyBlob: Buffer): string | undefined {
  if (keyBlob.length < 4) return undefined;
  const len = keyBlob.readUInt32BE(0);
  if (len === 0 || len > 64 || 4 + len > keyBlob.length) return undefined;
  return keyBlob.subarray(4, 4 + len).toString('latin1');
}

export function parseKnownHosts(text: string): KnownHostEntry[] {
  const entries: KnownHostEntry[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const entry = parseLine(raw.trim());
    if (entry) entries.push(entry);
  }
  return entries;
}

function parseLine(line: string): KnownHostEntry | undefined {
  if (line === '' || line.startsWith('#')) return undefined;
  const fields = line.split(/\s+/);
  let marker: KnownHostEntry['marker'];
  if (fields[0]?.startsWith('@')) {
    const m = fields.shift();
    if (m === '@revoked') marker = 'revoked';
    else if (m === '@cert-authority') marker = 'cert-authority';
    else return undefined;
  }
  const [hosts, keyType, b64] = fields;
  if (!hosts || !keyType || !b64) return undefined;
  const keyBlob = Buffer.from(b64, 'base64');
  if (keyBlob.length === 0) return undefined;
  return { marker, hosts, keyType, keyBlob };
}

/** Does an entry's host field (patterns or one hashed name) cover `name`? */
export function hostFieldMatches(field: string, name: string): boolean {
  if (field.startsWith('|1|')) return hashedMatches(field, name);
  let matched = false;
  for (const pattern of field.split(',')) {
    const negated = pattern.startsWith('!');
    const p = negated ? pattern.slice(1) : pattern;
    if (!wildcardMatch(p.toLowerCase(), name)) continue;
    if (negated) return false;
    matched = true;
  }
  return matched;
}

function hashedMatches(field: string, name: string): boolean {
  const [, , salt64, hash64] = field.split('|');
  if (!salt64 || !hash64) return false;
  const expected = Buffer.from(hash64, 'base64');
  const actual = createHmac('sha1', Buffer.from(salt64, 'base64')).update(name).digest();
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

function wildcardMatch(pattern: string, name: string): boolean {
  const re = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${re}$`).test(name);
}

function entriesFor(text: string, host: string, port: number): KnownHostEntry[] {
  const name = hostLookupName(host, port);
  return parseKnownHosts(text).filter((e) => hostFieldMatches(e.hosts, name));
}

export function checkHostKey(text: string, host: string, port: number, keyType: string, keyBlob: Buffer): HostKeyCheck {
  const entries = entriesFor(text, host, port).filter((e) => e.marker !== 'cert-authority');
  const sameType = entries.filter((e) => e.marker === undefined && sameKeyType(e, keyType));
  const expectedFingerprints = [...new Set(sameType.map((e) => fingerprint(e.keyBlob)))];
  if (entries.some((e) => e.marker === 'revoked' && e.keyBlob.equals(keyBlob))) {
    return { status: 'mismatch', expectedFingerprints };
  }
  if (sameType.some((e) => e.keyBlob.equals(keyBlob))) return { status: 'match' };
  if (sameType.length > 0) return { status: 'mismatch', expectedFingerprints };
  return { status: 'unknown' };
}

function sameKeyType(e: KnownHostEntry, keyType: string): boolean {
  return (keyTypeOfBlob(e.keyBlob) ?? e.keyType) === keyType;
}

/** Key types already known for this host, so the client can prefer them like OpenSSH does. */
export function knownKeyTypes(text: string, host: string, port: number): string[] {
  const types = entriesFor(text, host, port)
    .filter((e) => e.marker === undefined)
    .map((e) => keyTypeOfBlob(e.keyBlob) ?? e.keyType);
  return [...new Set(types)];
}
