// The cluster spec a command works on: a host file (YAML, ~/.ssh/config), or the local
// cluster when there is none. Shared by up, check, exec and plan; a background
// controller gets its spec from the `up --detach` that started it and never loads this.
import fs from 'node:fs';
import path from 'node:path';
import { loadHostFile } from '../../config/load.js';
import { localClusterSpec, withLocalSplitOf } from '../../config/local.js';
import type { ClusterSpec } from '../../config/spec.js';
import { UsageError } from '../../errors.js';
import type { AppContext } from '../context.js';
import { readHostFileBytes } from '../read-host-file.js';
import { findLocalPython } from './local-python.js';

/** `up --nworkers/--nthreads`: the local cluster's split, as LocalCluster's n_workers and threads_per_worker. */
export interface LocalSize {
  nworkers?: number;
  nthreads?: number;
}

/**
 * A local cluster re-adopted by an `up` given neither --nworkers nor --nthreads keeps the
 * split it was started with (state file), not this machine's default.
 */
export function localSpecFor(
  spec: ClusterSpec,
  previous: { spec: ClusterSpec } | undefined,
  size?: LocalSize,
): ClusterSpec {
  const sized = size?.nworkers !== undefined || size?.nthreads !== undefined;
  return spec.local && previous && !sized ? withLocalSplitOf(spec, previous.spec) : spec;
}

export function loadSpec(
  ctx: AppContext,
  file: string | undefined,
  python?: string,
  security?: 'tls' | 'none',
  size: LocalSize = {},
): ClusterSpec {
  const spec = loadSpecFile(ctx, file, python, size);
  return security ? { ...spec, security: { kind: security } } : spec;
}

function loadSpecFile(
  ctx: AppContext,
  file: string | undefined,
  python: string | undefined,
  size: LocalSize,
): ClusterSpec {
  if (!file) {
    return localClusterSpec({
      cores: ctx.cores,
      memoryBytes: ctx.memoryBytes,
      python: findLocalPython(ctx.env, python),
      ...size,
    });
  }
  if (size.nworkers !== undefined || size.nthreads !== undefined) {
    throw new UsageError(
      `--nworkers and --nthreads are for the local cluster (up without a host file); ${file} is a host file`,
      {
        hint: 'set worker_options: {nworkers: N, nthreads: N} in the host file instead',
      },
    );
  }
  if (python !== undefined) {
    throw new UsageError(`--python is for the local cluster (up without a host file); ${file} is a host file`, {
      hint: 'set remote_python in the host file (for all hosts, or per host) instead',
    });
  }
  const hostFile = path.resolve(ctx.cwd, file);
  return loadHostFile(hostFile, {
    // The host file through the bounded reader; ~/.ssh/config as it is.
    readFile: (p: string) => (p === hostFile ? readHostFileBytes(p) : fs.readFileSync(p, 'utf8')),
    env: ctx.env,
    homedir: ctx.homedir,
    cwd: ctx.cwd,
    username: ctx.username,
  });
}
