// The scheduler preload that serves /api/v1/sshcluster/demand. It is a real Python file
// (src/dask/remote/preload/scheduler_demand.py, copied to dist/remote/preload/ by the build) so it
// can be read, linted and run on its own; this module finds it (remote-programs.ts reads it once).
import { fileURLToPath } from 'node:url';
import { remoteSource } from './remote-programs.js';

export const SCHEDULER_DEMAND_PRELOAD_PATH = fileURLToPath(
  new URL('./remote/preload/scheduler_demand.py', import.meta.url),
);

/** The preload's source text, e.g. to write it to the scheduler host. */
export function schedulerDemandPreload(): string {
  return remoteSource('preload/scheduler_demand.py');
}

/**
 * `--preload X` for `dask scheduler`. Dask (preloading._import_module, 2022.12 and
 * 2024.12 alike) takes X ending in ".py" as a file path, X with a space in it as the
 * text of a module, anything else as a module name. A path is the better form: with
 * the text, Dask logs the whole source twice at INFO ("Creating preload: …").
 */
export function schedulerPreloadArgv(pathOrText: string): string[] {
  if (!pathOrText.endsWith('.py') && !pathOrText.includes(' '))
    throw new Error(`--preload ${pathOrText}: expected a .py path or the text of a module`);
  return ['--preload', pathOrText];
}
