// The cluster's TLS files on this machine: 0600 in a 0700 dir, reused by the same
// cluster id while valid (re-adoption), replaced for another cluster, removed by down.
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeClusterCerts } from '../../../src/tls/cert-authority.js';
import { prepareCerts, readCerts, removeCerts, tlsDir } from '../../../src/tls/cert-store.js';

let root: string;
const now = new Date();
const base = { clusterName: 'lab', clusterId: 'aa11', now };

beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'sshc-store-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('prepareCerts', () => {
  it('writes the set as 0600 files in a 0700 dir under the cluster dir', async () => {
    const p = await prepareCerts({ ...base, clusterDir: root });
    expect(p.dir).toBe(path.join(root, 'tls'));
    expect(p.reused).toBe(false);
    expect(statSync(p.dir).mode & 0o777).toBe(0o700);
    const names = readdirSync(p.dir).sort();
    expect(names).toEqual([
      'ca.pem',
      'client-key.pem',
      'client.pem',
      'scheduler-key.pem',
      'scheduler.pem',
      'worker-key.pem',
      'worker.pem',
    ]);
    for (const n of names) expect(statSync(path.join(p.dir, n)).mode & 0o777).toBe(0o600);
    expect(await readCerts(p.dir)).toEqual(p.certs);
  });

  it('reuses the set of the same cluster id (re-adoption keeps the CA its processes trust)', async () => {
    const first = await prepareCerts({ ...base, clusterDir: root });
    const again = await prepareCerts({ ...base, clusterDir: root });
    expect(again.reused).toBe(true);
    expect(again.certs).toEqual(first.certs);
  });

  it('makes a new CA for another cluster id, and for an expired set', async () => {
    const first = await prepareCerts({ ...base, clusterDir: root });
    const other = await prepareCerts({ ...base, clusterId: 'bb22', clusterDir: root });
    expect(other.reused).toBe(false);
    expect(other.certs.ca).not.toBe(first.certs.ca);
    const later = new Date(now.getTime() + 31 * 86_400_000);
    const renewed = await prepareCerts({ ...base, clusterId: 'bb22', now: later, clusterDir: root });
    expect(renewed.reused).toBe(false);
    expect(renewed.certs.ca).not.toBe(other.certs.ca);
  });

  it("copies the user's own certificates in, every time", async () => {
    await prepareCerts({ ...base, clusterDir: root });
    const own = await makeClusterCerts({ ...base, clusterId: 'theirs' });
    const p = await prepareCerts({ ...base, clusterDir: root, own });
    expect(p.reused).toBe(false);
    expect(await readCerts(p.dir)).toEqual(own);
  });

  it('refuses a tls dir owned by someone else', async () => {
    await expect(prepareCerts({ ...base, clusterDir: root, uid: 12345 })).rejects.toThrow(
      /not a directory owned by this user/,
    );
  });
});

describe('removeCerts', () => {
  it('removes the whole set, and is quiet when there is none', async () => {
    await prepareCerts({ ...base, clusterDir: root });
    await removeCerts(root);
    expect(readdirSync(root)).not.toContain(path.basename(tlsDir(root)));
    await expect(removeCerts(root)).resolves.toBeUndefined();
    expect(await readCerts(tlsDir(root))).toBeUndefined();
  });
});
