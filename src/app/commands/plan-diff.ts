// A host file against a running cluster (its state, and the workers its controller says
// run): what `plan` shows and `apply` carries out, and what `up` of a running cluster
// checks to say whether its file changes anything.
import { diffSpecs, type SpecDiff } from '../../cluster/changes/spec-diff.js';
import type { ClusterSpec } from '../../config/spec.js';
import { adaptiveFromJson, type ClusterRecord } from '../../control/state-file.js';
import type { ControlApiClient } from '../controller/control-api.js';

export async function diffWithCluster(
  state: ClusterRecord,
  file: ClusterSpec,
  client: ControlApiClient | undefined,
): Promise<{ next: ClusterSpec; diff: SpecDiff }> {
  // Adaptive settings in force came from up, the file or `adapt`; a file without an
  // `adaptive:` section leaves them as they are.
  const inForce = state.adaptive
    ? adaptiveFromJson(state.adaptive)
    : state.adaptive === null
      ? undefined
      : state.spec.adaptive;
  const old: ClusterSpec = { ...state.spec, adaptive: inForce };
  const next: ClusterSpec = { ...file, name: state.name, adaptive: file.adaptive ?? inForce };
  const status = await client?.call('status').catch(() => undefined);
  const current = status
    ? status.workers.filter((w) => w.state !== 'stopped').map((w) => ({ name: w.name, host: w.host }))
    : state.processes.filter((p) => p.role === 'worker').map((p) => ({ name: p.name, host: p.host }));
  return { next, diff: diffSpecs(old, next, current, next.adaptive !== undefined) };
}
