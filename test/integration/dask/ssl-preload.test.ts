// The TLS preload (src/dask/remote/preload/ssl_error_queue.py) in a REAL Python and OpenSSL: a
// stale error on the thread's OpenSSL queue breaks a healthy TLS read unless the preload
// is loaded. In CI's trixie hosts this was a scheduler's read of a new worker's
// connection failing with BrokenPipeError (python/cpython#148594).
// SSHCLUSTER_TEST_PYTHON=<interpreter> runs it under another Python (e.g. the e2e
// harness's Debian trixie wrapper, which sees only /tmp: the files are copied there).
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SSL_PRELOAD_PATH, sslPreloadArgv } from '../../../src/dask/ssl-preload.js';
import { makeClusterCerts } from '../../../src/tls/cert-authority.js';
import { writeCerts } from '../../../src/tls/cert-store.js';

const PYTHON = process.env['SSHCLUSTER_TEST_PYTHON'] || '/usr/bin/python3';
const SCRIPT = fileURLToPath(new URL('../fixtures/ssl/stale_error.py', import.meta.url));
const dir = mkdtempSync('/tmp/sshcluster-sslq-');

beforeAll(async () => {
  await writeCerts(join(dir, 'tls'), await makeClusterCerts({ clusterName: 't', clusterId: 't', now: new Date() }));
  copyFileSync(SCRIPT, join(dir, 'stale_error.py'));
  copyFileSync(SSL_PRELOAD_PATH, join(dir, 'ssl_error_queue.py'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function read(withPreload: boolean): string {
  const args = [join(dir, 'stale_error.py'), join(dir, 'tls', 'scheduler.pem'), join(dir, 'tls', 'scheduler-key.pem')];
  if (withPreload) args.push(join(dir, 'ssl_error_queue.py'));
  const r = spawnSync(PYTHON, args, {
    encoding: 'utf8',
    env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', PYTHONDONTWRITEBYTECODE: '1' },
    timeout: 15_000,
  });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.trim();
}

describe('the TLS preload', () => {
  it('without it, a stale OpenSSL error breaks a healthy read (the premise; if this fails, Python fixed it)', () => {
    expect(read(false)).toMatch(/^spurious /);
  });

  it('with it, the same read says there is nothing more to read', () => {
    expect(read(true)).toBe('want-read');
  });

  it('is given to the scheduler and worker with --preload, and to a nanny with --preload-nanny', () => {
    expect(sslPreloadArgv('/d/ssl_error_queue.py', false)).toEqual(['--preload', '/d/ssl_error_queue.py']);
    expect(sslPreloadArgv('/d/ssl_error_queue.py', true)).toEqual([
      '--preload',
      '/d/ssl_error_queue.py',
      '--preload-nanny',
      '/d/ssl_error_queue.py',
    ]);
  });
});
