// What `sshcluster env` prints for a client: shell exports (so a plain `Client()` in
// that shell, or a notebook started from it, reads Dask's config from the environment)
// or Python building the same `Security` explicitly.
import type { TlsPaths } from '../tls/tls-files.js';
import { exportLines } from './remote-command.js';
import { CLIENT_TLS_ENV, clientEnv } from './tls.js';

export function shellSnippet(address: string, client?: TlsPaths): string {
  const unset = client ? [] : [`unset ${CLIENT_TLS_ENV.join(' ')}`];
  return [...exportLines(clientEnv(address, client)), ...unset].join('\n') + '\n';
}

/** JSON string literals are Python string literals too (same escapes for \\, ", control characters). */
const py = (s: string): string => JSON.stringify(s);

export function pythonSnippet(address: string, client?: TlsPaths): string {
  if (!client) return ['from distributed import Client', '', `client = Client(${py(address)})`, ''].join('\n');
  return [
    'from distributed import Client',
    'from distributed.security import Security',
    '',
    'security = Security(',
    `    tls_ca_file=${py(client.caFile)},`,
    `    tls_client_cert=${py(client.cert)},`,
    `    tls_client_key=${py(client.key)},`,
    '    require_encryption=True,',
    ')',
    `client = Client(${py(address)}, security=security)`,
    '',
  ].join('\n');
}
