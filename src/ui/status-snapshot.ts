// What the dashboard reads of the controller's status document. Structural, so ui/
// does not import app/: the `status --json` document (StatusJson) fits it as it is.
export interface WorkerSnapshot {
  name: string;
  host: string;
  pid: number | null;
  state: string;
  restarts: number;
  address: string | null;
  nthreads: number;
  memoryLimit: string;
  cpu?: number;
  memoryBytes?: number;
  memoryLimitBytes?: number;
  executing?: number;
}

export interface AdaptiveSnapshot {
  enabled: boolean;
  minimum: number;
  maximum: number | null;
  target: number | null;
  lastDecision: { decision: string; reason: string; time: string } | null;
}

export interface StatusSnapshot {
  name: string;
  schedulerAddress: string;
  dashboardUrl: string;
  startedAt: string;
  desiredWorkers: number;
  hosts: { name: string; roles: string[]; state: string; lastError: string | null; workers: number }[];
  workers: WorkerSnapshot[];
  adaptive: AdaptiveSnapshot | null;
}
