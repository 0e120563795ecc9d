// adaptive.groups: optional bounds on the workers of some hosts, next to the
// whole-cluster minimum/maximum (which keep Dask's meaning):
//   adaptive:
//     groups:
//       gpu: {hosts: "gpu*", minimum: 0, maximum: 4}
// `hosts` is a pattern as `--hosts` takes it (names, globs, ranges, comma lists) or a
// list of them, matched against the worker hosts when the file is read.
import { hostMatcher } from './hosts/host-match.js';
import type { Layout, PlacedHost } from './layout.js';
import { opt, stringList } from './read/read-options.js';
import { GROUP_KEYS, type RawAdaptiveGroup } from './schema.js';
import type { AdaptiveGroupSpec } from './spec.js';
import { configError } from './config-error.js';
import type { Cursor } from './read/yaml-cursor.js';

const GROUP_NAME = {
  re: /^[A-Za-z0-9][A-Za-z0-9._-]*$/,
  expected: 'expected a group name of letters, digits, ".", "_" or "-"',
};

export function readAdaptiveGroups(c: Cursor): RawAdaptiveGroup[] {
  return [...c.entries('any', { keyPattern: GROUP_NAME })].map(([name, g]) => {
    if (!g.present) return g.fail('expected {hosts: PATTERN, minimum: N, maximum: N}');
    const f = g.entries(GROUP_KEYS);
    const hosts = f.get('hosts');
    if (!hosts?.present)
      return g.fail(
        'missing "hosts": expected {hosts: PATTERN, minimum: N, maximum: N}',
        'e.g. hosts: "gpu*" or hosts: [gpu1, gpu2]',
      );
    const patterns = stringList(hosts);
    for (const p of patterns) hosts.parse(() => hostMatcher(p));
    const out: RawAdaptiveGroup = { name, patterns, where: g.where(), hostsWhere: hosts.where() };
    const minimum = opt(f, 'minimum', (v) => v.int(0));
    const maximum = opt(f, 'maximum', (v) => v.int(0));
    if (minimum !== undefined) Object.assign(out, { minimum, minimumWhere: f.get('minimum')!.where() });
    if (maximum !== undefined) Object.assign(out, { maximum, maximumWhere: f.get('maximum')!.where() });
    if (minimum !== undefined && maximum !== undefined && minimum > maximum)
      f.get('maximum')!.fail(`expected a value >= minimum (${minimum})`);
    return out;
  });
}

/**
 * The groups with their hosts resolved to worker host names; a pattern matching no
 * worker host, or a minimum the group's slots (or the cluster maximum) cannot hold, is
 * refused where it was written.
 */
export function resolveAdaptiveGroups(
  groups: readonly RawAdaptiveGroup[],
  layout: Layout,
  slots: (w: PlacedHost) => number,
  clusterMaximum: number,
): AdaptiveGroupSpec[] {
  return groups.map((g) => {
    const tests = g.patterns.map((p) => hostMatcher(p));
    const members = layout.workers.filter((w) => tests.some((t) => t(w.name)));
    if (members.length === 0) throw noMatch(g, layout);
    const room = members.reduce((s, w) => s + slots(w), 0);
    const minimum = g.minimum ?? 0;
    if (g.minimumWhere && minimum > room) {
      throw configError(
        g.minimumWhere,
        `expected at most ${room}, the worker slots of this group's hosts (sum of max_workers)`,
      );
    }
    if (g.minimumWhere && minimum > clusterMaximum) {
      throw configError(g.minimumWhere, `expected at most ${clusterMaximum}, the cluster's adaptive maximum`);
    }
    return { name: g.name, hosts: members.map((w) => w.name), minimum, maximum: g.maximum ?? room };
  });
}

function noMatch(g: RawAdaptiveGroup, layout: Layout): Error {
  const names = layout.workers.map((w) => w.name);
  const shown = names.length > 8 ? `${names.slice(0, 8).join(', ')}, …` : names.join(', ');
  const onlyScheduler = g.patterns.some((p) => hostMatcher(p)(layout.scheduler.name));
  const detail = `${g.patterns.map((p) => `"${p}"`).join(', ')} matches no worker host${onlyScheduler ? ` (${layout.scheduler.name} runs only the scheduler)` : ''}`;
  return configError(g.hostsWhere, detail, `the worker hosts are: ${shown}`);
}
