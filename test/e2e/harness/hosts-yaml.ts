import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import type { TestHostsInfo } from './types.js';

type Doc = Record<string, unknown>;

type HostsPart = Pick<TestHostsInfo, 'hosts' | 'clientKeyPath' | 'knownHostsPath'> &
  Partial<Pick<TestHostsInfo, 'python'>>;

/**
 * Writes an sshcluster host file for the test hosts. Pass `{...info, hosts: subset}` to
 * use fewer hosts; `extra` adds top-level keys (its connect_options merge into ours,
 * its `hosts` replaces the generated list). remote_python is the project's Dask
 * (info.python), the system python3 when not given.
 */
export function writeHostsYaml(path: string, info: HostsPart, extra: Doc = {}): string {
  const { connect_options: extraConnect, ...rest } = extra;
  const doc: Doc = {
    ...(rest.name !== undefined ? { name: rest.name } : {}),
    connect_options: {
      username: 'root',
      identity_file: info.clientKeyPath,
      known_hosts: info.knownHostsPath,
      strict_host_key_checking: 'yes',
      connect_timeout: '5s',
      ...(extraConnect as Doc | undefined),
    },
    remote_python: info.python ?? '/usr/bin/python3',
    // Plain TCP unless a test asks for TLS (the default, which tls-ssh.test.ts covers):
    // the other tests' clients are plain `Client("tcp://…")`, as before TLS existed.
    security: 'none',
    ...rest,
    // Namespace hosts all listen on 22; loopback fallback hosts need their own port.
    hosts:
      rest.hosts ?? info.hosts.map((h) => (h.port === 22 ? h.ip : { host: h.ip, connect_options: { port: h.port } })),
  };
  // A key given as undefined (`security`, `remote_python`) asks for the product's default.
  for (const k of Object.keys(doc)) if (doc[k] === undefined) delete doc[k];
  writeFileSync(path, stringify(doc));
  return path;
}
