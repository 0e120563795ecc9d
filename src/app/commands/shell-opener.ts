// How a command opens a shell on each host of a spec: SSH, or this machine for the local
// cluster. Apart from the spec's loading (cluster-spec.ts), so `down` and a background
// controller open shells without loading the host-file reader.
import fs from 'node:fs';
import type { ClusterSpec, HostSpec } from '../../config/spec.js';
import { HostConnection } from '../../ssh/host-connection.js';
import type { ShellPort } from '../../ssh/shell-port.js';
import type { AppContext } from '../context.js';
import { LocalShell } from '../transport/local-shell.js';
import { secretProvider } from '../transport/secrets.js';

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
