// The cluster spec a command works on (a host file, or the local cluster when there is
// none) and how it opens a shell on each of its hosts: shared by up, check, exec and
// down, kept apart from `up` so those commands do not load the controller.
import fs from 'node:fs';
import path from 'node:path';
import { loadHostFile } from '../../config/load.js';
import { localClusterSpec } from '../../config/local.js';
import type { ClusterSpec, HostSpec } from '../../config/spec.js';
import { HostConnection } from '../../ssh/host-connection.js';
import type { ShellPort } from '../../ssh/shell-port.js';
import type { AppContext } from '../context.js';
import { readHostFileBytes } from '../read-host-file.js';
import { LocalShell } from '../remote/local-shell.js';
import { secretProvider } from '../remote/secrets.js';
import { findLocalPython } from './local-python.js';

export function loadSpec(ctx: AppContext, file: string | undefined, python?: string, security?: 'tls' | 'none'): ClusterSpec {
  const spec = loadSpecFile(ctx, file, python);
  return security ? { ...spec, security: { kind: security } } : spec;
}

function loadSpecFile(ctx: AppContext, file: string | undefined, python?: string): ClusterSpec {
  if (!file) {
    return localClusterSpec({ cores: ctx.cores, memoryBytes: ctx.memoryBytes, python: findLocalPython(ctx.env, python) });
  }
  const hostFile = path.resolve(ctx.cwd, file);
  return loadHostFile(hostFile, {
    // The host file through the bounded reader; ~/.ssh/config as it is.
    readFile: (p: string) => (p === hostFile ? readHostFileBytes(p) : fs.readFileSync(p, 'utf8')),
    env: ctx.env,
    homedir: ctx.homedir,
    cwd: ctx.cwd,
    username: ctx.username,
  });
}

export function shellOpener(ctx: AppContext, spec: ClusterSpec): (h: HostSpec) => Promise<ShellPort> {
  if (spec.local) return async () => new LocalShell(ctx.env);
  const secrets = secretProvider(ctx);
  return (h) =>
    HostConnection.open(h.connect, {
      readFile: (p: string) => fs.readFileSync(p),
      appendFile: (p: string, text: string) => fs.appendFileSync(p, text, { mode: 0o600 }),
      secrets,
    });
}
