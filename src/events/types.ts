// Everything the controller reports goes through this union; sinks and the UI read
// only these.

export type HostState = 'connecting' | 'starting' | 'running' | 'failed' | 'unreachable' | 'stopping' | 'stopped';

export type ClusterEvent =
  | { kind: 'host-state'; host: string; state: HostState; reason?: string; detail?: string[] }
  /** `adopted`: a process a previous controller started, taken over (re-adoption). */
  | { kind: 'process-started'; host: string; name: string; pid: number; adopted?: true }
  | { kind: 'process-line'; host: string; name: string; stream: 'stdout' | 'stderr'; line: string }
  | { kind: 'process-exit'; host: string; name: string; code: number | null; signal: string | null; expected: boolean }
  | {
      kind: 'cluster-up';
      /** The cluster's name, for the `sshcluster env --name` line. */
      name: string;
      schedulerAddress: string;
      dashboardUrl: string;
      workers: { name: string; address: string }[];
      failedHosts: string[];
    }
  | { kind: 'teardown-started'; reason: string }
  | { kind: 'teardown-done'; forced: string[]; leftover: { host: string; pids: number[] }[] }
  | { kind: 'notice'; level: 'info' | 'warning' | 'error'; message: string }
  /** An adaptive step that changes the worker set ('up', 'down'), with its reason. */
  | {
      kind: 'adaptive-decision';
      decision: string;
      target: number;
      current: number;
      /** Workers in the plan once it is applied (absent from an older controller: then target). */
      after?: number;
      reason: string;
    };

export type EventListener = (e: ClusterEvent) => void;

/** A tiny synchronous fan-out; listeners must not throw. */
export class EventBus {
  private listeners = new Set<EventListener>();
  on(l: EventListener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }
  emit(e: ClusterEvent): void {
    for (const l of this.listeners) l(e);
  }
}
