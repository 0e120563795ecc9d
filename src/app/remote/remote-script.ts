// A shell script for one host as `up` runs its processes: the host's setup lines, its
// env exported, then the body. Runs under the remote login shell (POSIX-like, as for up).
import type { HostSpec } from '../../config/spec.js';
import { quoteWord } from '../../dask/remote-command.js';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function hostScript(h: Pick<HostSpec, 'setup' | 'env'>, body: string): string {
  const lines = [...h.setup];
  for (const [name, value] of Object.entries(h.env)) {
    if (!ENV_NAME.test(name)) throw new Error(`not a valid environment variable name: ${name}`);
    lines.push(`export ${name}=${quoteWord(value)}`);
  }
  lines.push(body);
  return lines.join('\n');
}
