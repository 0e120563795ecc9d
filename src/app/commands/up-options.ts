// What `sshcluster up` is asked (cli/up-command.ts fills it from the flags).
import type { ClusterSpec } from '../../config/spec.js';
import type { ClusterEvent } from '../../events/types.js';
import type { MetricsAddress } from '../controller/metrics-server.js';

export interface UpOptions {
  file?: string;
  fanout: number;
  requireAll: boolean;
  json: boolean;
  python?: string;
  /** --nworkers/--nthreads: the local cluster's split (LocalCluster's n_workers, threads_per_worker). */
  size?: { nworkers?: number; nthreads?: number };
  name?: string;
  readyTimeoutMs: number;
  /** `--adapt [--min N --max N]`: adaptive from the start (a host file's `adaptive:` does the same). */
  adapt?: { minimum?: number; maximum?: number };
  /** Set in the background controller of `up --detach`: events also go to the parent. */
  report?: (e: ClusterEvent) => void;
  /** Seconds our processes outlive this controller, waiting for a new one (0: none). */
  orphanGraceS?: number;
  /** false with --no-tui; the dashboard also needs a terminal (dashboardWanted). */
  tui?: boolean;
  /** --security: overrides the host file's `security:` (the local cluster's way to opt in). */
  security?: 'tls' | 'none';
  /** --metrics: where the controller serves GET /metrics. */
  metrics?: MetricsAddress;
  /** The spec, already loaded and checked (by the parent of a background controller). */
  spec?: ClusterSpec;
}
