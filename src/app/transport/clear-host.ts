// One visit to a host with no runner of a controller's: everything of the cluster there
// stopped, then its files removed. `down` from the state file makes it on every host; a
// re-adopting controller on the hosts an interrupted `apply` had yet to leave.
import type { HostSpec } from '../../config/spec.js';
import type { ClearUpResult } from '../../cluster/ports.js';
import type { ShellPort } from '../../ssh/shell-port.js';
import { ShellHostRunner } from './host-runner.js';

export interface ClearHostOptions {
  clusterId: string;
  /** The cluster keeps files on its hosts (keepsFilesOn). */
  keepsFiles: boolean;
  /** Every TMPDIR its files may be under there (tmpdirsOn). */
  tmpdirs: (string | undefined)[];
  graceMs: number;
}

/** Over `shell`, a connection to `h`, which it closes. */
export async function clearHost(shell: ShellPort, h: HostSpec, o: ClearHostOptions): Promise<ClearUpResult> {
  const { clusterId, keepsFiles, tmpdirs } = o;
  const runner = new ShellHostRunner({
    host: h.name,
    clusterId,
    setup: h.setup,
    shell,
    python: h.remotePython,
    env: h.env,
    keepsFiles,
    tmpdirs: () => tmpdirs,
    commandTimeoutMs: h.connect.commandTimeoutMs,
  });
  try {
    return await runner.clearUp({ graceMs: o.graceMs });
  } finally {
    runner.close();
  }
}
