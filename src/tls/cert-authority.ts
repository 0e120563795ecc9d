// A certificate authority made for one cluster: one CA, and a certificate + key for the
// scheduler, for workers and nannies, and for clients, all signed by it. Dask's TLS is
// mutual and checks no host names (Security sets check_hostname = False: "a dedicated
// CA for the cluster"), so a peer is trusted exactly when its certificate comes from
// this CA. The CA's private key signs the three certificates and is then dropped:
// nobody, us included, can add a fourth.
//
// @peculiar/x509 over Node's WebCrypto: EC P-256 (ECDSA/SHA-256), which every OpenSSL
// that Python's ssl links accepts for TLS 1.2 and 1.3. It needs a Reflect polyfill,
// imported first (ES modules evaluate imports in order).
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { randomBytes, webcrypto } from 'node:crypto';

export const TLS_ROLES = ['scheduler', 'worker', 'client'] as const;
export type TlsRole = (typeof TLS_ROLES)[number];

/** PEM text. */
export interface CertPair {
  cert: string;
  key: string;
}

export interface ClusterCerts {
  /** The CA certificate: what every process verifies its peers against. */
  ca: string;
  scheduler: CertPair;
  worker: CertPair;
  client: CertPair;
}

export interface MakeCertsOptions {
  clusterName: string;
  clusterId: string;
  now: Date;
  validDays?: number;
}

export const DEFAULT_VALID_DAYS = 30;
/** Hosts' clocks differ; a certificate "not yet valid" on a host a minute behind would fail. */
const BACKDATE_MS = 60 * 60 * 1000;
const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const crypto = webcrypto as unknown as Crypto;

/** A fresh CA and the three role certificates, valid from `now` (backdated an hour). */
export async function makeClusterCerts(o: MakeCertsOptions): Promise<ClusterCerts> {
  const notBefore = new Date(o.now.getTime() - BACKDATE_MS);
  const notAfter = new Date(o.now.getTime() + (o.validDays ?? DEFAULT_VALID_DAYS) * 86_400_000);
  const caKeys = await newKeys();
  const caName = subject(o, `sshcluster CA ${o.clusterName}`);
  const ca = await x509.X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: serial(),
      name: caName,
      notBefore,
      notAfter,
      keys: caKeys,
      signingAlgorithm: ALG,
      extensions: [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
        // OpenSSL's strict mode (Python 3.13's default context) wants key identifiers.
        await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey, false, crypto),
      ],
    },
    crypto,
  );
  const issue = async (role: TlsRole): Promise<CertPair> => {
    const keys = await newKeys();
    // Scheduler, workers and nannies both accept and open connections; clients only open.
    const usages =
      role === 'client'
        ? [x509.ExtendedKeyUsage.clientAuth]
        : [x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth];
    const cert = await x509.X509CertificateGenerator.create(
      {
        serialNumber: serial(),
        subject: subject(o, `sshcluster ${role}`),
        issuer: ca.subject,
        notBefore,
        notAfter,
        publicKey: keys.publicKey,
        signingKey: caKeys.privateKey,
        signingAlgorithm: ALG,
        extensions: [
          new x509.BasicConstraintsExtension(false, undefined, true),
          new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
          new x509.ExtendedKeyUsageExtension(usages, false),
          await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false, crypto),
          await x509.AuthorityKeyIdentifierExtension.create(caKeys.publicKey, false, crypto),
        ],
      },
      crypto,
    );
    return { cert: cert.toString('pem') + '\n', key: await pkcs8Pem(keys.privateKey) };
  };
  return {
    ca: ca.toString('pem') + '\n',
    scheduler: await issue('scheduler'),
    worker: await issue('worker'),
    client: await issue('client'),
  };
}

/** The cluster id goes in OU so a certificate says which cluster it belongs to. */
function subject(o: MakeCertsOptions, cn: string): string {
  return `CN=${cn}, OU=${o.clusterId}, O=sshcluster`;
}

function newKeys(): Promise<CryptoKeyPair> {
  return crypto.subtle.generateKey(ALG, true, ['sign', 'verify']) as Promise<CryptoKeyPair>;
}

/** 16 random bytes, high bit clear: a positive serial (RFC 5280 §4.1.2.2). */
function serial(): string {
  const b = randomBytes(16);
  b[0] = b[0]! & 0x7f;
  return b.toString('hex');
}

async function pkcs8Pem(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await crypto.subtle.exportKey('pkcs8', key));
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return ['-----BEGIN PRIVATE KEY-----', ...lines, '-----END PRIVATE KEY-----', ''].join('\n');
}
