// The files a cluster keeps on its hosts, written on every connect (cluster-files.py):
// over SSH, the TLS material each host's roles need and, on the scheduler's host, the
// scheduler preload (the adaptive loop's demand route). Where the preload ended up is
// what the scheduler's argv points at; the local cluster uses this machine's copy.
import path from 'node:path';
import type { ClusterSpec, HostSpec } from '../../config/spec.js';
import { SCHEDULER_DEMAND_PRELOAD_PATH, schedulerDemandPreload } from '../../dask/scheduler-preload.js';
import { errorText } from '../../errors.js';
import type { ClusterEvent } from '../../events/types.js';
import type { ShellHostRunner } from '../remote/host-runner.js';
import type { SessionTls } from '../tls-setup.js';

/**
 * Whether the cluster keeps files on `host` over SSH (what ship() writes there): the
 * scheduler preload on the scheduler's host, and with TLS the certificates on each.
 * What a `down` from the state file must remove with the processes.
 */
export function keepsFilesOn(spec: ClusterSpec, host: string): boolean {
  return !spec.local && (spec.security?.kind === 'tls' || host === spec.schedulerHost.name);
}

/** The scheduler preload's name on a host. */
const PRELOAD_FILE = 'scheduler_demand.py';

export class HostFiles {
  /** Where the scheduler finds its preload; undefined: it starts without it. */
  preloadPath: string | undefined;

  constructor(
    private readonly spec: ClusterSpec,
    private readonly tls: SessionTls | undefined,
    private readonly emit: (e: ClusterEvent) => void,
  ) {
    if (spec.local) this.preloadPath = SCHEDULER_DEMAND_PRELOAD_PATH;
  }

  /**
   * Writes what `h` needs through its new runner. Without its TLS files a host cannot
   * take part (this throws); without the preload the scheduler runs as Dask's own and
   * adaptive ignores resources (said here, and once more by the adaptive loop).
   */
  async ship(runner: ShellHostRunner, h: HostSpec): Promise<void> {
    const ship = this.tls?.shipping;
    const preload = h.name === this.spec.schedulerHost.name && !this.spec.local;
    const files = [...(ship?.filesFor(h.name) ?? []), ...(preload ? [{ name: PRELOAD_FILE, content: schedulerDemandPreload() }] : [])];
    if (!files.length) return;
    try {
      const dir = await runner.putClusterFiles(files);
      ship?.shipped(h.name, dir);
      if (preload) this.preloadPath = path.posix.join(dir, PRELOAD_FILE);
    } catch (err) {
      if (ship) throw err;
      this.emit({ kind: 'notice', level: 'warning', message: `${h.name}: the scheduler starts without sshcluster's preload (${errorText(err)})` });
    }
  }
}
