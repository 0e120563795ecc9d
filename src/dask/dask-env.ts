// DASK_* environment for the processes we start. Dask maps DASK_A__B_C=v to config
// key a.b-c (lower-cased, "__" nests, "_"/"-" interchangeable) and parses v with
// ast.literal_eval, falling back to the raw string (dask/config.py collect_env).

/** distributed.yaml's default scheduler.http.routes plus the /api/v1 module. */
export const DASK_API_ROUTES: readonly string[] = [
  'distributed.http.scheduler.prometheus',
  'distributed.http.scheduler.info',
  'distributed.http.scheduler.json',
  'distributed.http.health',
  'distributed.http.proxy',
  'distributed.http.statics',
  'distributed.http.scheduler.api',
];

/** Dask's default format, pinned so a user's config cannot break our line parsers. */
export const DASK_LOG_FORMAT = '%(asctime)s - %(name)s - %(levelname)s - %(message)s';

/**
 * Readiness lines ("Scheduler at:", "Registered to:") are INFO on the `distributed`
 * logger. distributed.logging is where distributed.yaml documents logging config and
 * it wins over a top-level `logging` key, so set it there: a user's yaml saying
 * `distributed: warning` is overridden by the environment.
 */
function loggingEnv(): Record<string, string> {
  return {
    DASK_DISTRIBUTED__LOGGING__DISTRIBUTED: 'info',
    DASK_DISTRIBUTED__ADMIN__LOG_FORMAT: DASK_LOG_FORMAT,
  };
}

/**
 * Where a Dask process keeps its scratch space, as its argv and env name it: the launcher
 * (launcher.py, with_scratch) makes the cluster's own checked directory on the host and
 * puts its path in place of this token. Dask's default, $TMPDIR/dask-worker-space, is
 * any user's to make first.
 */
export const CLUSTER_SCRATCH_DIR = '@sshcluster-scratch@';

/** Dask's temporary-directory: the scheduler's scratch space (it has no --local-directory). */
function scratchEnv(): Record<string, string> {
  return { DASK_TEMPORARY_DIRECTORY: CLUSTER_SCRATCH_DIR };
}

/** A Python list literal of plain strings (module names never contain quotes). */
function pythonList(items: readonly string[]): string {
  return `[${items.map((s) => `'${s}'`).join(', ')}]`;
}

/** `extra` (e.g. the user's env) first: the keys we depend on are not overridable. */
export function schedulerEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...extra,
    ...loggingEnv(),
    ...scratchEnv(),
    DASK_DISTRIBUTED__SCHEDULER__HTTP__ROUTES: pythonList(DASK_API_ROUTES),
    // The preload is imported from the cluster's files directory: no __pycache__ there.
    PYTHONDONTWRITEBYTECODE: '1',
  };
}

export function workerEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { PYTHONUNBUFFERED: '1', ...extra, ...loggingEnv(), ...scratchEnv() };
}
