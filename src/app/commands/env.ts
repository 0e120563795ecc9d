// `sshcluster env`: what a client on this machine needs to reach the cluster: its
// scheduler address and, when it talks TLS, the CA and the client certificate kept in
// the cluster's state dir. Works from the state file (no controller needed).
import fs from 'node:fs';
import { clientEnv } from '../../dask/tls.js';
import { pythonSnippet, shellSnippet } from '../../dask/client-snippets.js';
import { errorText, ExpectedError } from '../../errors.js';
import { safeLine } from '../../events/terminal-text.js';
import { tlsDir } from '../../tls/cert-store.js';
import { tlsPathsIn, type TlsPaths } from '../../tls/tls-files.js';
import type { AppContext } from '../context.js';
import { findCluster, leftHint } from './find-cluster.js';

export interface EnvOptions {
  name?: string;
  json: boolean;
  python: boolean;
}

export async function runEnv(ctx: AppContext, o: EnvOptions): Promise<number> {
  try {
    return await printEnv(ctx, o);
  } catch (err) {
    // `eval "$(sshcluster env --name typo)"` would export nothing, and a Client() then
    // silently start a LocalCluster: what is eval'd fails too (the message is on stderr).
    if (!o.json)
      ctx.stdout.write(
        o.python ? `raise SystemExit(${JSON.stringify(`sshcluster env failed: ${errorText(err)}`)})\n` : 'false\n',
      );
    throw err;
  }
}

async function printEnv(ctx: AppContext, o: EnvOptions): Promise<number> {
  const found = await findCluster(ctx, o.name, false);
  found.client?.close();
  // Printed all the same (a detached cluster's processes outlive their controller a while).
  if (!found.client)
    ctx.stderr.write(
      safeLine(
        `warning: no controller is running for cluster "${found.name}", so its scheduler may be gone: ${leftHint(found.state)}`,
      ) + '\n',
    );
  const address = found.state.schedulerAddress;
  const client = address.startsWith('tls://') ? clientFiles(found.name, tlsDir(found.paths.dir)) : undefined;
  if (o.json) {
    const doc = {
      name: found.name,
      schedulerAddress: address,
      tls: client !== undefined,
      env: clientEnv(address, client),
    };
    ctx.stdout.write(JSON.stringify(doc, null, 2) + '\n');
  } else ctx.stdout.write(o.python ? pythonSnippet(address, client) : shellSnippet(address, client));
  return 0;
}

function clientFiles(name: string, dir: string): TlsPaths {
  const paths = tlsPathsIn(dir, 'client');
  const missing = [paths.caFile, paths.cert, paths.key].filter((p) => !fs.existsSync(p));
  if (missing.length) {
    throw new ExpectedError(
      `cluster "${name}" talks TLS but its client certificate is missing: ${missing.join(', ')}`,
      {
        hint: `it is made by sshcluster up; restart the cluster (sshcluster down --name ${name}, then up)`,
      },
    );
  }
  return paths;
}
