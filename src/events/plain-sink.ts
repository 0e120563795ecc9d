// Off a TTY (or with --no-tui): one plain line per event, process output prefixed
// with its source as `logs` and the dashboard show it (`node0/scheduler │`,
// `node1-0 │`). --json writes the events themselves as NDJSON. Both escape control characters (terminal-text.ts): remote output never reaches a terminal raw.
import { logSource } from './log-source.js';
import { jsonText, safeText } from './terminal-text.js';
import type { ClusterEvent } from './types.js';

export type Write = (text: string) => void;

export function plainLine(e: ClusterEvent): string | undefined {
  switch (e.kind) {
    case 'host-state': {
      const reason = e.reason ? `: ${e.reason}` : '';
      const detail = e.detail?.length ? '\n' + e.detail.map((l) => `    ${l}`).join('\n') : '';
      return `[${e.host}] ${e.state}${reason}${detail}`;
    }
    case 'process-started':
      return `[${e.host}] ${e.name} ${e.adopted ? 'adopted' : 'started'} (pid ${e.pid})`;
    case 'process-line':
      return `${logSource(e.name, e.host)} │ ${e.line}`;
    case 'process-exit': {
      const how = exitText(e);
      return `[${e.host}] ${e.name}${how.startsWith('lost') ? ': ' : ' '}${how}`;
    }
    case 'cluster-up':
      return [
        `Cluster up: ${e.workers.length} worker(s)` +
          (e.failedHosts.length ? `, failed hosts: ${e.failedHosts.join(', ')}` : ''),
        `  scheduler: ${e.schedulerAddress}`,
        `  dashboard: ${e.dashboardUrl}`,
        // env prints the address and, with TLS, the client certificate's variables.
        `  eval "$(sshcluster env --name ${shellWord(e.name)})"`,
      ].join('\n');
    case 'teardown-started':
      return `Stopping cluster (${e.reason}) …`;
    case 'teardown-done': {
      const lines = ['Cluster stopped.'];
      if (e.forced.length) lines.push(`  killed by force: ${e.forced.join(', ')}`);
      for (const l of e.leftover) lines.push(leftoverLine(l));
      if (!e.leftover.length) lines.push('  verified: no process of this cluster is left on any host');
      return lines.join('\n');
    }
    case 'notice':
      return e.level === 'info' ? e.message : `${e.level}: ${e.message}`;
    case 'adaptive-decision':
      return `adaptive: ${decisionText(e)}`;
  }
}

export function plainSink(write: Write): (e: ClusterEvent) => void {
  return (e) => {
    const line = plainLine(e);
    if (line !== undefined) write(safeText(line) + '\n');
  };
}

export function ndjsonSink(write: Write): (e: ClusterEvent) => void {
  return (e) => write(jsonText({ time: new Date().toISOString(), ...e }) + '\n');
}

/** A cluster name as one shell word (host-file names need no quotes; --name may). */
function shellWord(s: string): string {
  return /^[A-Za-z0-9._-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** A host with pids still runs something of ours; one without could not be checked. */
export function leftoverLine(l: { host: string; pids: number[] }): string {
  return l.pids.length
    ? `  STILL RUNNING on ${l.host}: pids ${l.pids.join(' ')}`
    : `  NOT CHECKED: ${l.host} (not connected; run sshcluster down again when it is back)`;
}

/**
 * "up 1 → 3 workers: start 2: target 3 > 1", one way for every view. The counts are the
 * plan's before and after: the scheduler's target alone can say 0 while demand by
 * resource starts a worker.
 */
export function decisionText(e: Extract<ClusterEvent, { kind: 'adaptive-decision' }>): string {
  const after = e.after ?? e.target;
  return `${e.decision} ${e.current} → ${after} worker${after === 1 ? '' : 's'}: ${e.reason}`;
}

/** How a process ended, as every view says it. */
export function exitText(e: Extract<ClusterEvent, { kind: 'process-exit' }>): string {
  if (e.expected) return 'stopped';
  // Neither a code nor a signal: the SSH channel closed without an exit status, so the
  // connection went, and the process may still run there (it is stopped on reconnect).
  if (e.code === null && e.signal === null) return 'lost with the connection to its host (no exit status)';
  return `exited unexpectedly (${e.signal ? `signal ${e.signal}` : `code ${e.code}`})`;
}
