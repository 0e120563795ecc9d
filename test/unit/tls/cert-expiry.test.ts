// Certificates end (30 days by default) and cannot be renewed in place (the CA's key is
// dropped): status, check and the dashboard say when, warning from 7 days before, and a
// re-adopting up refuses an expired set rather than make a CA its processes do not trust.
// Short lifetimes here (validDays), as SSHCLUSTER_TEST_CERT_DAYS gives `up`.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeClusterCerts, type MakeCertsOptions } from '../../../src/tls/cert-authority.js';
import { certificatesStatus, certsNotAfter } from '../../../src/tls/cert-expiry.js';
import { prepareCerts } from '../../../src/tls/cert-store.js';

const DAY = 86_400_000;
const now = new Date('2026-11-28T12:00:00Z');
const base = { clusterName: 'lab', clusterId: 'aa11', now };
let root: string;
beforeEach(() => (root = mkdtempSync(path.join(os.tmpdir(), 'sshc-expiry-'))));
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('certificate expiry', () => {
  it('30 days: valid until then, no warning', async () => {
    const end = certsNotAfter(await makeClusterCerts(base));
    expect(end).toBe('2026-12-28T12:00:00.000Z');
    expect(certificatesStatus(end, now.getTime())).toEqual({ notAfter: end, expiresInDays: 30, warning: null });
  });

  it('a short lifetime (3 days): warned from 7 days before, then expired', async () => {
    const end = certsNotAfter(await makeClusterCerts({ ...base, validDays: 3 }));
    expect(end).toBe('2026-12-01T12:00:00.000Z');
    const soon = certificatesStatus(end, now.getTime());
    expect(soon.expiresInDays).toBe(3);
    expect(soon.warning).toBe(
      "the cluster's TLS certificates expire at 2026-12-01 12:00 UTC (in 3 day(s)): from then no new worker or client can connect; sshcluster down, then up, makes new ones",
    );
    const after = certificatesStatus(end, now.getTime() + 4 * DAY);
    expect(after.expiresInDays).toBe(-1);
    expect(after.warning).toBe(
      "the cluster's TLS certificates expired at 2026-12-01 12:00 UTC: no new worker or client can connect; sshcluster down, then up, makes new ones",
    );
    expect(certificatesStatus(end, now.getTime() + 3 * DAY - 90 * 60_000).warning).toContain('(in 1 hour(s))');
  });

  it('a re-adopting up refuses an expired set with a clear message; a new cluster id gets a new CA', async () => {
    const make = (o: MakeCertsOptions) => makeClusterCerts({ ...o, validDays: 1 });
    const first = await prepareCerts({ ...base, clusterDir: root, make });
    const later = new Date(now.getTime() + 2 * DAY);
    // Still valid: kept, as re-adoption needs.
    expect((await prepareCerts({ ...base, clusterDir: root, make, adopting: true })).reused).toBe(true);
    await expect(prepareCerts({ ...base, now: later, clusterDir: root, make, adopting: true })).rejects.toThrow(
      'cluster "lab": its TLS certificates expired at 2026-11-29 12:00 UTC; its running processes accept no new worker or client, and certificates cannot be renewed in place',
    );
    const fresh = await prepareCerts({ ...base, clusterId: 'bb22', now: later, clusterDir: root, make });
    expect(fresh.reused).toBe(false);
    expect(fresh.certs.ca).not.toBe(first.certs.ca);
  });
});
