// `security:` in the host file. `tls` (the default for SSH clusters): mutual TLS with a
// CA made for the cluster. `none`: plain TCP. A mapping: the user's own certificates,
// in the shape of Dask's distributed.comm.tls config (ca-file, scheduler/worker/client
// cert and key), as paths on this machine; they are shipped to the hosts like ours.
import { expandPath } from '../hosts/connect-spec.js';
import { SECURITY_KEYS, TLS_PAIR_KEYS, type RawPath, type RawSecurity, type RawTlsPair } from '../schema.js';
import type { SecuritySpec } from '../spec.js';
import { configError, type LocalFileContext } from '../config-error.js';
import type { Cursor } from './yaml-cursor.js';

const EXPECTED =
  'expected "tls", "none", or {ca_file, scheduler: {cert, key}, worker: {cert, key}, client: {cert, key}}';
const HINT = 'see "security:" in config.example.yaml';

export function readSecurity(c: Cursor): RawSecurity {
  if (!c.isMap()) {
    const v = c.scalar(EXPECTED);
    // YAML reads a bare `false` as a boolean; it can only mean "no TLS".
    if (v === 'none' || v === false) return { kind: 'none', where: c.where() };
    if (v === 'tls' || v === true) return { kind: 'tls', where: c.where() };
    return c.fail(EXPECTED, HINT);
  }
  const f = c.entries(SECURITY_KEYS);
  const need = (key: string): Cursor => {
    const v = f.get(key);
    if (!v?.present)
      return c.fail(`missing "${key}": ${EXPECTED}`, 'every role needs its certificate and key, signed by ca_file');
    return v;
  };
  return {
    kind: 'files',
    ca_file: rawPath(need('ca_file')),
    scheduler: pair(need('scheduler')),
    worker: pair(need('worker')),
    client: pair(need('client')),
    where: c.where(),
  };
}

function pair(c: Cursor): RawTlsPair {
  const f = c.entries(TLS_PAIR_KEYS);
  const need = (key: 'cert' | 'key'): RawPath => {
    const v = f.get(key);
    if (!v?.present) return c.fail(`missing "${key}": expected {cert: PATH, key: PATH}`);
    return rawPath(v);
  };
  return { cert: need('cert'), key: need('key') };
}

function rawPath(c: Cursor): RawPath {
  return { path: c.string('expected a file path'), where: c.where() };
}

/**
 * RawSecurity → SecuritySpec, reading each file once so a missing, unreadable or
 * swapped (key for cert) file is reported at its line before anything starts.
 */
export function buildSecurity(raw: RawSecurity | undefined, ctx: LocalFileContext): SecuritySpec {
  if (!raw) return { kind: 'tls' };
  if (raw.kind !== 'files') return { kind: raw.kind };
  const file = (p: RawPath, what: 'certificate' | 'key'): string => checkedFile(p, what, ctx);
  const both = (p: RawTlsPair) => ({ cert: file(p.cert, 'certificate'), key: file(p.key, 'key') });
  return {
    kind: 'tls',
    files: {
      caFile: file(raw.ca_file, 'certificate'),
      scheduler: both(raw.scheduler),
      worker: both(raw.worker),
      client: both(raw.client),
    },
  };
}

function checkedFile(p: RawPath, what: 'certificate' | 'key', ctx: LocalFileContext): string {
  const abs = expandPath(p.path, ctx.fileDir, ctx.homedir);
  let text: string;
  try {
    const data = ctx.readFile(abs);
    text = typeof data === 'string' ? data : Buffer.from(data).toString('latin1');
  } catch (err) {
    throw configError(p.where, `cannot read ${abs}: ${(err as Error).message}`);
  }
  const ok =
    what === 'certificate'
      ? text.includes('-----BEGIN CERTIFICATE-----')
      : /-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text);
  // Never quote the file: it may be a key.
  if (!ok)
    throw configError(
      p.where,
      `${abs} is not a PEM ${what === 'certificate' ? 'certificate' : 'private key'}`,
      'expected PEM text ("-----BEGIN …")',
    );
  return abs;
}
