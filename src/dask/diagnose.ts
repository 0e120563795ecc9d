// Turns a remote process's early exit into the reason a user can act on.
import type { ExitInfo } from '../cluster/ports.js';
import { NO_PYTHON_MESSAGE, PYTHON_CANDIDATES } from './remote-shell.js';

/**
 * `firstError`: the first exception line it printed (TrackedProcess.firstError). Read
 * only when the tail ends in Dask's "… failed to start", which says nothing of why: it
 * is the cause, which a long chained traceback pushes out of the tail.
 */
export function describeExit(exit: ExitInfo, tail: readonly string[], python: string, firstError?: string): string {
  const last = [...tail].reverse().find((l) => /Error|error|Exception/.test(l)) ?? tail[tail.length - 1];
  const cause =
    firstError && last && /failed to start/i.test(last) && firstError !== last ? firstError.trim() : undefined;
  const text = [cause ?? '', ...tail].join('\n');
  if (text.includes(NO_PYTHON_MESSAGE)) {
    return `no python with dask/distributed found (tried ${PYTHON_CANDIDATES.join(', ')}): install it (apt-get install python3-distributed, or pip install distributed) or set remote_python`;
  }
  // The launcher could not write the files the process needs (launcher.py, files_failed).
  const files = /^sshcluster-launcher: (cannot write the cluster's files: .*)$/m.exec(text);
  if (files) return files[1]!;
  if (exit.code === 127 || (/not found|No such file or directory/.test(text) && /exec/.test(text))) {
    return `python not found: remote_python "${python}" is not on that host (set remote_python to its path)`;
  }
  if (/No module named ['"]?(distributed|dask)/.test(text)) {
    return `dask/distributed is not installed for ${python} (apt-get install python3-distributed, or pip install distributed)`;
  }
  if (/Address already in use|address already in use/i.test(text)) {
    return 'port already in use (another scheduler? set scheduler_options.port)';
  }
  const how = exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
  return last ? `exited with ${how}: ${last.trim()}${cause ? ` (${cause})` : ''}` : `exited with ${how}`;
}
