// `up`'s first step: the spec it runs and what a dead controller of the same cluster left
// (its processes keep their cluster id, ports and spec: a re-adopting controller keeps them).
import { randomBytes } from 'node:crypto';
import { mergeAdaptive } from '../../adaptive/settings.js';
import { diffSpecs, hasChanges } from '../../cluster/changes/spec-diff.js';
import type { ClusterSpec } from '../../config/spec.js';
import type { ClusterPaths } from '../../control/paths.js';
import { adaptiveFromJson, type ClusterRecord } from '../../control/state-file.js';
import { UsageError } from '../../errors.js';
import type { AppContext } from '../context.js';
import { pathsFor } from '../controller/control-endpoint.js';
import { refuseIfRunning } from './find-cluster.js';
import { withFreeLocalPorts, withLocalPortsOf } from './local-ports.js';
import type { UpOptions } from './up-options.js';

export interface UpPlan {
  spec: ClusterSpec;
  paths: ClusterPaths;
  clusterId: string;
  /** The state file of a dead controller of this cluster: what to adopt. */
  previous: ClusterRecord | undefined;
  /** The spec the running processes have, kept over a host file that differs from it. */
  kept: ClusterSpec | undefined;
}

export async function prepareUp(ctx: AppContext, opts: UpOptions): Promise<UpPlan> {
  // A background controller has its spec from the `up --detach` that started it.
  const specs = opts.spec ? undefined : await import('./cluster-spec.js');
  const loaded = opts.spec ?? specs!.loadSpec(ctx, opts.file, opts.python, opts.security, opts.size);
  const name = opts.name ?? loaded.name;
  const paths = pathsFor(ctx, name);
  // A dead controller's processes keep its cluster id: adopting them needs it.
  const previous = await refuseIfRunning(
    paths,
    name,
    opts.file === undefined ? undefined : { path: opts.file, spec: loaded },
  );
  // A background controller's spec came from its parent, which did this already.
  const given = specs ? specs.localSpecFor(loaded, previous, opts.size) : loaded;
  // A local cluster re-adopts on the ports it had (its scheduler may still hold them).
  const kept = given.local ? undefined : runningSpec(given, previous);
  const local = given.local
    ? previous
      ? withLocalPortsOf(given, previous.spec)
      : await withFreeLocalPorts(given)
    : (kept ?? given);
  const spec = withAdaptive(carryAdaptive({ ...local, name }, previous), opts.adapt);
  const clusterId = previous?.clusterId ?? randomBytes(8).toString('hex');
  return { spec, paths, clusterId, previous, kept };
}

/**
 * A re-adopting controller keeps the spec its processes were started with: a host file
 * changed since is for `plan`/`apply`, not a reason to adopt processes under another
 * spec. That spec when the file differs, else undefined (the file's is used).
 */
function runningSpec(given: ClusterSpec, previous: ClusterRecord | undefined): ClusterSpec | undefined {
  if (
    !previous ||
    !hasChanges(
      diffSpecs(previous.spec, { ...given, name: previous.spec.name, adaptive: previous.spec.adaptive }, [], false),
    )
  )
    return undefined;
  return { ...previous.spec, adaptive: given.adaptive ?? previous.spec.adaptive };
}

/**
 * A restarted controller goes on as the dead one did: adaptive with the settings last
 * given (with `adapt` too), or at a fixed size if adaptive had been turned off.
 */
function carryAdaptive(spec: ClusterSpec, previous: ClusterRecord | undefined): ClusterSpec {
  if (previous?.adaptive === undefined) return spec;
  const { adaptive: _fromFile, ...rest } = spec;
  return previous.adaptive ? { ...rest, adaptive: adaptiveFromJson(previous.adaptive) } : rest;
}

/** The cluster is adaptive from the start with --adapt or an `adaptive:` section. */
function withAdaptive(spec: ClusterSpec, flags: UpOptions['adapt']): ClusterSpec {
  if (!flags && !spec.adaptive) return spec;
  const adaptive = mergeAdaptive(spec.adaptive, flags ?? {});
  if (adaptive.minimum > adaptive.maximum)
    throw new UsageError(`--min ${adaptive.minimum} is above --max ${adaptive.maximum}`);
  return { ...spec, adaptive };
}
