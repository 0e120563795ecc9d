// Host specs the spec in force no longer has, while something of the cluster may still be
// on their host: `apply` removed the host (its workers retire before it is left), or gave
// it another TMPDIR (the files its earlier processes were given stay under the old one
// until the teardown). Kept in the state file, so that `down` from it after the
// controller died, and a controller that re-adopts, clear those too.
import { clusterHosts, type ClusterSpec, type HostSpec } from '../../config/spec.js';

/**
 * `before` replaced by `after` (undefined: removed), added to `former` if that leaves
 * something behind: the host is gone, or its TMPDIR moved. One entry per host and
 * TMPDIR, the latest spec (how to reach a removed host).
 */
export function withFormer(former: readonly HostSpec[], before: HostSpec, after: HostSpec | undefined): HostSpec[] {
  if (after && after.env.TMPDIR === before.env.TMPDIR) return [...former];
  return [...former.filter((h) => h.name !== before.name || h.env.TMPDIR !== before.env.TMPDIR), before];
}

/** Every TMPDIR the cluster's files may be under on `host` (undefined: the host's default, /tmp). */
export function tmpdirsOn(spec: ClusterSpec, former: readonly HostSpec[], host: string): (string | undefined)[] {
  const current = clusterHosts(spec).find((h) => h.name === host);
  return [
    ...new Set([...(current ? [current] : []), ...former.filter((h) => h.name === host)].map((h) => h.env.TMPDIR)),
  ];
}

/** The hosts to clear: the spec's (the scheduler's first), then those only `former` has. */
export function hostsToClear(spec: ClusterSpec, former: readonly HostSpec[]): HostSpec[] {
  const hosts = clusterHosts(spec);
  const named = new Map(former.map((h) => [h.name, h])); // the latest of each
  return [...hosts, ...[...named.values()].filter((h) => !hosts.some((s) => s.name === h.name))];
}
