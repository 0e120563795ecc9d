// Which expanded host runs the scheduler and which run workers. As in Dask's
// SSHCluster, the scheduler host runs no workers unless it is listed a second time.
import type { RawHostEntry, RawHostFile } from './schema.js';

export interface PlacedHost {
  name: string;
  entry: RawHostEntry;
}

export interface Layout {
  scheduler: PlacedHost;
  workers: PlacedHost[];
}

export function layoutHosts(raw: RawHostFile): Layout {
  const placed = raw.hosts.flatMap((entry) => entry.names.map((name) => ({ name, entry })));
  const wanted = raw.scheduler_host;
  if (!wanted) {
    const [scheduler, ...workers] = placed;
    // readHostFile guarantees at least one host.
    return { scheduler: scheduler!, workers };
  }
  const i = placed.findIndex((p) => p.name === wanted.address.host);
  if (i !== -1) return { scheduler: placed[i]!, workers: placed.filter((_, j) => j !== i) };
  // A scheduler host outside the list: the top-level settings apply to it.
  const entry: RawHostEntry = {
    names: [wanted.address.host],
    ...(wanted.address.user ? { user: wanted.address.user } : {}),
    ...(wanted.address.port ? { port: wanted.address.port } : {}),
    connect_options: {},
    env: {},
    worker_options: {},
    where: wanted.where,
  };
  return { scheduler: { name: wanted.address.host, entry }, workers: placed };
}
