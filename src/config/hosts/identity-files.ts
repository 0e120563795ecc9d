// identity_file as written in the host file is read once, at load, so a wrong path is
// refused at its line before anything connects, for a host with no other way in. Not
// checked: IdentityFile from ~/.ssh/config and OpenSSH's defaults (~/.ssh/id_ed25519, …),
// which may well not exist, and ssh skips them silently, as ssh/auth.ts does; nor for a
// host that also has an agent or a password (OpenSSH only warns then: the agent may hold
// the key, as with a host file shared between machines).
import { configError, type LocalFileContext } from '../config-error.js';
import type { RawHostFile, RawPath } from '../schema.js';
import { agentSocket, expandPath } from './connect-spec.js';

const FALLBACK = 'or remove identity_file to use ssh-agent and ~/.ssh/config IdentityFile';

export function checkIdentityFiles(
  raw: RawHostFile,
  ctx: LocalFileContext & { env: Readonly<Record<string, string | undefined>> },
): void {
  const checked = new Set<RawPath>();
  for (const h of raw.hosts) {
    const o = { ...raw.connect_options, ...h.connect_options };
    if (o.password !== undefined || agentSocket(o, ctx) !== undefined) continue;
    for (const p of o.identity_file ?? []) if (!checked.has(p)) (checked.add(p), checkReadable(p, ctx));
  }
}

function checkReadable(p: RawPath, ctx: LocalFileContext): void {
  const abs = expandPath(p.path, ctx.fileDir, ctx.homedir);
  try {
    ctx.readFile(abs);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // Never quote what was read: it is a private key.
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw configError(
        p.where,
        `identity file ${abs} does not exist`,
        `correct the path (a relative one is from the host file's directory), ${FALLBACK}`,
      );
    }
    if (code === 'EACCES' || code === 'EPERM') {
      throw configError(
        p.where,
        `cannot read identity file ${abs}: permission denied`,
        `the key must be readable by you (your own key: chmod 600 ${abs}), ${FALLBACK}`,
      );
    }
    if (code === 'EISDIR')
      throw configError(
        p.where,
        `identity file ${abs} is a directory`,
        'name the private key file in it, e.g. ~/.ssh/id_ed25519',
      );
    throw configError(p.where, `cannot read identity file ${abs}: ${(err as Error).message}`);
  }
}
