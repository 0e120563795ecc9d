// The port the dashboard acts through. app/ gives one adapter for a foreground `up`
// (the session, in-process) and one for `attach` (the control socket).
import type { StatusJson } from '../control/status-document.js';

export interface DashboardActions {
  /** 'controller': this process runs the cluster (foreground up); 'attached': attach. */
  readonly mode: 'controller' | 'attached';
  status(): Promise<StatusJson>;
  scale(n: number): Promise<{ desired: number; message?: string }>;
  setAdaptive(on: boolean): Promise<void>;
  restartWorker(name: string): Promise<void>;
  /** Graceful teardown (controller mode). */
  teardown(): Promise<void>;
  /** Leave the dashboard; attached: the cluster keeps running. */
  detach(): void;
  /** Ctrl-C: like SIGINT for the command without the dashboard. */
  interrupt(): void;
}
