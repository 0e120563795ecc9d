// The socket file of a controller: replaced only when whatever made it is gone.
import fs from 'node:fs/promises';
import net from 'node:net';
import { ExpectedError } from '../errors.js';

/**
 * A socket file is left behind when a controller dies. It may only be replaced when
 * nothing answers on it, else two controllers would run the same cluster.
 */
export async function removeStaleSocket(socketPath: string): Promise<void> {
  const st = await fs.lstat(socketPath).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (!st) return;
  if (!st.isSocket()) {
    throw new ExpectedError(`${socketPath} exists and is not a socket; refusing to replace it`, {
      hint: 'move it aside after checking what it is',
    });
  }
  const answered = await new Promise<boolean>((resolve, reject) => {
    const probe = net.connect(socketPath);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNREFUSED' || err.code === 'ENOENT') resolve(false);
      else reject(err);
    });
  });
  if (answered) throw alreadyRunning(socketPath);
  await fs.rm(socketPath, { force: true });
}

export function listenOnce(server: net.Server, socketPath: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      // Another controller won the race between our probe and our listen.
      reject(err.code === 'EADDRINUSE' ? alreadyRunning(socketPath) : err);
    });
    server.listen(socketPath, () => resolve());
  });
}

function alreadyRunning(socketPath: string): ExpectedError {
  return new ExpectedError('a controller for this cluster is already running', {
    hint: `it listens on ${socketPath}; use \`sshcluster attach\` or \`sshcluster down\` (or pick another --name)`,
  });
}
