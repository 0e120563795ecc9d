// The user's own certificates (security: {ca_file, …}), read at `up` and checked to
// form a set before anything starts: each certificate signed by ca_file, each key the
// one of its certificate, no encrypted key (Dask's processes could not unlock it).
import { createPrivateKey, X509Certificate } from 'node:crypto';
import fs from 'node:fs/promises';
import type { TlsFilesSpec } from '../config/spec.js';
import { ExpectedError } from '../errors.js';
import type { ClusterCerts, TlsRole } from './cert-authority.js';

/** The user's files, checked to form a set: each certificate from ca_file, each key its certificate's. */
export async function readOwnCerts(files: TlsFilesSpec): Promise<ClusterCerts> {
  const read = (p: string) => fs.readFile(p, 'utf8');
  const ca = await read(files.caFile);
  const pair = async (role: TlsRole) => {
    const f = files[role];
    const out = { cert: await read(f.cert), key: await read(f.key) };
    checkPair(ca, files.caFile, role, out, f);
    return out;
  };
  return { ca, scheduler: await pair('scheduler'), worker: await pair('worker'), client: await pair('client') };
}

function checkPair(
  caPem: string,
  caFile: string,
  role: TlsRole,
  pem: { cert: string; key: string },
  f: { cert: string; key: string },
): void {
  const bad = (what: string) =>
    new ExpectedError(`security.${role}: ${what}`, {
      exitCode: 2,
      hint: 'check the paths under security: in the host file',
    });
  let ca: X509Certificate;
  let cert: X509Certificate;
  try {
    ca = new X509Certificate(caPem);
  } catch {
    throw bad(`${caFile} (ca_file) is not a readable certificate`);
  }
  try {
    cert = new X509Certificate(pem.cert);
  } catch {
    throw bad(`${f.cert} is not a readable certificate`);
  }
  if (!cert.checkIssued(ca) || !cert.verify(ca.publicKey)) throw bad(`${f.cert} is not signed by ca_file ${caFile}`);
  let matches = false;
  try {
    matches = cert.checkPrivateKey(createPrivateKey(pem.key));
  } catch {
    throw bad(
      `${f.key} is not a readable private key (an encrypted key cannot be used: Dask's processes could not unlock it)`,
    );
  }
  if (!matches) throw bad(`${f.key} is not the key of ${f.cert}`);
}
