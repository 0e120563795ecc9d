// Dask's side of the cluster's mutual TLS: the flags `dask scheduler` / `dask worker`
// take, the config that makes every process refuse plain TCP, and what a client needs
// (Dask config names from distributed.yaml: distributed.comm.tls.*, require-encryption).
import type { TlsPaths } from '../tls/tls-files.js';

/**
 * `--protocol tls` as well as the files: said outright rather than left to each Dask
 * version's guess from the files and `--host`. The nanny passes both to its worker.
 */
export function tlsArgv(paths: TlsPaths): string[] {
  return ['--protocol', 'tls', '--tls-ca-file', paths.caFile, '--tls-cert', paths.cert, '--tls-key', paths.key];
}

export const REQUIRE_ENCRYPTION_ENV = 'DASK_DISTRIBUTED__COMM__REQUIRE_ENCRYPTION';

/** distributed.comm.require-encryption: no comm without TLS, in or out. Not a secret. */
export function requireEncryptionEnv(): Record<string, string> {
  return { [REQUIRE_ENCRYPTION_ENV]: 'True' };
}

/** What a client needs in its environment: `Client()` then reads it from Dask's config. */
export function clientEnv(address: string, client?: TlsPaths): Record<string, string> {
  const env: Record<string, string> = { DASK_SCHEDULER_ADDRESS: address };
  if (!client) return env;
  return {
    ...env,
    DASK_DISTRIBUTED__COMM__TLS__CA_FILE: client.caFile,
    DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT: client.cert,
    DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY: client.key,
    ...requireEncryptionEnv(),
  };
}

/** The TLS variables clientEnv may set: a plain cluster's `env` unsets them (a TLS cluster's, eval'd before, would refuse tcp://). */
export const CLIENT_TLS_ENV = [
  'DASK_DISTRIBUTED__COMM__TLS__CA_FILE',
  'DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT',
  'DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY',
  REQUIRE_ENCRYPTION_ENV,
];
