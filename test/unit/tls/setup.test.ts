// up's TLS step: the warning for `security: none`, the local cluster's files in its state
// dir, what each SSH host is given, the user's own certificates checked to form a set
// before anything starts.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setUpTls } from '../../../src/app/tls-setup.js';
import { CLUSTER_FILES_DIR } from '../../../src/dask/remote-command.js';
import type { ClusterSpec, TlsFilesSpec } from '../../../src/config/spec.js';
import { clusterPaths } from '../../../src/control/paths.js';
import { EventBus, type ClusterEvent } from '../../../src/events/types.js';
import { makeClusterCerts, type ClusterCerts } from '../../../src/tls/cert-authority.js';
import { readCerts } from '../../../src/tls/cert-store.js';
import { readOwnCerts } from '../../../src/tls/own-certs.js';
import { testSpec } from '../config/spec-fixture.js';

let root: string;
let events: ClusterEvent[];
let bus: EventBus;
beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'sshc-setup-'));
  events = [];
  bus = new EventBus();
  bus.on((e) => events.push(e));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const setUp = (spec: ClusterSpec) =>
  setUpTls({ spec, paths: clusterPaths(root, spec.name), clusterId: 'id1', bus, now: new Date() });
const notices = () => events.flatMap((e) => (e.kind === 'notice' ? [`${e.level}: ${e.message}`] : []));

describe('setUpTls', () => {
  it('warns once that the port is open when an SSH cluster opts out', async () => {
    expect(await setUp({ ...testSpec({ workers: ['n1'] }), security: { kind: 'none' } })).toBeUndefined();
    expect(notices()).toEqual([
      "warning: security: none: the scheduler's port 8786 on n0 is open to anyone who can reach it (no encryption, no authentication)",
    ]);
  });

  it('says nothing for the plain local cluster', async () => {
    expect(await setUp({ ...testSpec({ workers: ['n1'] }), local: true, security: { kind: 'none' } })).toBeUndefined();
    expect(notices()).toEqual([]);
  });

  it("points the local cluster's processes at its state dir", async () => {
    const tls = await setUp({ ...testSpec({ workers: ['n1'] }), local: true, security: { kind: 'tls' } });
    const dir = path.join(root, 't', 'tls');
    expect(tls?.dirFor('localhost')).toBe(dir);
    expect(existsSync(path.join(dir, 'client-key.pem'))).toBe(true);
    expect(existsSync(tls!.preloadFor('localhost'))).toBe(true); // this machine's copy of the TLS preload
  });

  it("makes an SSH cluster's CA and gives each host its roles' files, never the client key", async () => {
    const spec = testSpec({ workers: ['n0', 'n1'] });
    const tls = await setUp({ ...spec, security: { kind: 'tls' } });
    const certs = await readCerts(path.join(root, 't', 'tls'));
    expect(certs).toBeDefined();
    const names = (host: string) =>
      tls!.filesFor!(host)
        .map((f) => f.name)
        .sort();
    expect(names('n0')).toEqual([
      'ca.pem',
      'scheduler-key.pem',
      'scheduler.pem',
      'ssl_error_queue.py',
      'worker-key.pem',
      'worker.pem',
    ]);
    expect(names('n1')).toEqual(['ca.pem', 'ssl_error_queue.py', 'worker-key.pem', 'worker.pem']);
    expect(tls!.filesFor!('n1').find((f) => f.name === 'worker-key.pem')?.content).toBe(certs!.worker.key);
    // Processes name them in the directory the launcher writes them to, which it puts in.
    expect(tls!.dirFor('n1')).toBe(CLUSTER_FILES_DIR);
    expect(tls!.preloadFor('n1')).toBe(`${CLUSTER_FILES_DIR}/ssl_error_queue.py`);
    expect(notices()).toEqual([]);
  });
});

describe('readOwnCerts', () => {
  let mine: ClusterCerts;
  let files: TlsFilesSpec;
  beforeEach(async () => {
    mine = await makeClusterCerts({ clusterName: 'own', clusterId: 'x', now: new Date() });
    const d = path.join(root, 'pki');
    mkdirSync(d);
    const put = (name: string, text: string) => (writeFileSync(path.join(d, name), text), path.join(d, name));
    files = {
      caFile: put('ca.pem', mine.ca),
      scheduler: { cert: put('s.pem', mine.scheduler.cert), key: put('s.key', mine.scheduler.key) },
      worker: { cert: put('w.pem', mine.worker.cert), key: put('w.key', mine.worker.key) },
      client: { cert: put('c.pem', mine.client.cert), key: put('c.key', mine.client.key) },
    };
  });

  it('reads a consistent set', async () => {
    expect(await readOwnCerts(files)).toEqual(mine);
  });

  it('refuses a certificate another CA signed', async () => {
    const stranger = await makeClusterCerts({ clusterName: 'x', clusterId: 'y', now: new Date() });
    writeFileSync(files.worker.cert, stranger.worker.cert);
    await expect(readOwnCerts(files)).rejects.toMatchObject({
      exitCode: 2,
      message: `security.worker: ${files.worker.cert} is not signed by ca_file ${files.caFile}`,
    });
  });

  it("refuses a key that is not its certificate's", async () => {
    writeFileSync(files.client.key, mine.scheduler.key);
    await expect(readOwnCerts(files)).rejects.toMatchObject({
      exitCode: 2,
      message: `security.client: ${files.client.key} is not the key of ${files.client.cert}`,
    });
  });
});
