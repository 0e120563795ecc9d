// A `--name` with no state file behind it: either a cluster that ran here and stopped
// (its recorded runs are kept: `down` has nothing to stop, `logs` reads them), or a name
// this machine has never had a cluster of, most likely a typo: a usage error (exit 2)
// that lists the clusters there are. One rule for every command that takes --name.
import fs from 'node:fs';
import { listRuns } from '../../control/log-runs.js';
import { clusterPaths } from '../../control/paths.js';
import { listClusters } from '../../control/state-file.js';
import { quoteWord } from '../../dask/remote-command.js';
import { ExpectedError, UsageError } from '../../errors.js';

/** Nothing running by that name, or nothing at all: `down` treats it as done, like `docker compose down`. */
export class NoClusterError extends ExpectedError {}

/** No cluster of that name on this machine, running or stopped: exit 2. */
export class UnknownClusterError extends UsageError {}

export interface KnownCluster {
  name: string;
  /** No state file, only recorded runs: it ran here and has stopped. */
  stopped: boolean;
}

/** Clusters with a state file (even one that cannot be read) or recorded runs, by name. */
export async function knownClusters(root: string): Promise<KnownCluster[]> {
  const withState = new Set((await listClusters(root)).map((c) => c.name));
  const stopped = new Set(stoppedClusters(root, withState));
  return clusterDirs(root)
    .filter((name) => withState.has(name) || stopped.has(name))
    .map((name) => ({ name, stopped: stopped.has(name) }));
}

/** Clusters without a state file (not among `withState`) whose recorded runs are kept, by name. */
export function stoppedClusters(root: string, withState: ReadonlySet<string>): string[] {
  return clusterDirs(root).filter((name) => !withState.has(name) && hasRuns(root, name));
}

/** The error for a `--name` whose state file does not exist. */
export async function missingCluster(root: string, name: string): Promise<ExpectedError> {
  if (hasRuns(root, name)) {
    // A detached cluster's controller said why it ended (the scheduler exited, a down) in its log.
    const log = clusterPaths(root, name).controllerLog;
    const why = fs.existsSync(log) ? `; why it ended: the end of ${log}` : '';
    return new NoClusterError(`cluster "${name}" is not running (it has stopped; the logs of its last runs are kept)`, {
      hint: `sshcluster logs --name ${quoteWord(name)} shows them${why}; sshcluster up [HOSTS.yaml] --name ${quoteWord(name)} starts it again`,
    });
  }
  const known = await knownClusters(root);
  if (!known.length) {
    return new UnknownClusterError(`no cluster named "${name}" on this machine, and no other cluster either`, {
      hint: "start one with sshcluster up [HOSTS.yaml] (named by the host file's name: or --name)",
    });
  }
  const names = known.map((c) => (c.stopped ? `${c.name} (stopped)` : c.name)).join(', ');
  return new UnknownClusterError(
    `no cluster named "${name}" on this machine; there ${known.length === 1 ? 'is' : 'are'}: ${names}`,
    {
      hint: `name one of those with --name (sshcluster list shows them)`,
    },
  );
}

function hasRuns(root: string, name: string): boolean {
  return listRuns(clusterPaths(root, name).logsDir).length > 0;
}

function clusterDirs(root: string): string[] {
  try {
    return fs
      .readdirSync(root, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}
