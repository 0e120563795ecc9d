// --hosts PATTERN: a comma list of host names, globs (node0*, rack?-n1) or ranges
// (node[01-04]), matched against the names in the host file.
import { hostMatcher } from '../../config/hosts/host-match.js';
import { UsageError } from '../../errors.js';

export function matchHosts<T extends { name: string }>(hosts: readonly T[], pattern: string): T[] {
  let test: (name: string) => boolean;
  try {
    test = hostMatcher(pattern);
  } catch (err) {
    throw new UsageError(`--hosts: ${(err as Error).message}`);
  }
  const picked = hosts.filter((h) => test(h.name));
  if (picked.length === 0) {
    const names = hosts.map((h) => h.name);
    const shown = names.length > 8 ? `${names.slice(0, 8).join(', ')}, …` : names.join(', ');
    throw new UsageError(`--hosts ${pattern}: no host in the host file matches`, { hint: `the hosts are: ${shown}` });
  }
  return picked;
}
