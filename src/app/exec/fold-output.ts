// clush -b: hosts whose output and exit are identical are printed once, under the
// folded list of their names.
import { safeText } from '../../events/terminal-text.js';
import { compressHosts } from '../hosts/compress-hosts.js';

export type HostStatus =
  | { kind: 'exit'; code: number }
  | { kind: 'signal'; signal: string; code: number }
  | { kind: 'timeout'; afterS: number; code: number }
  | { kind: 'failed'; reason: string; message: string; hint?: string; code: number };

export interface HostResult {
  host: string;
  status: HostStatus;
  /** stdout and stderr as they arrived, interleaved (when cut, under a first line that says so). */
  output: string;
  truncated: boolean;
  /** When truncated: the lines dropped from the front, and their bytes. */
  cut?: { lines: number; bytes: number };
}

export interface Fold {
  hosts: string[];
  status: HostStatus;
  output: string;
}

export function foldResults(results: readonly HostResult[]): Fold[] {
  const folds = new Map<string, Fold>();
  for (const r of results) {
    const key = `${statusLabel(r.status)}\0${failureText(r.status)}\0${r.output}`;
    const f = folds.get(key);
    if (f) f.hosts.push(r.host);
    else folds.set(key, { hosts: [r.host], status: r.status, output: r.output });
  }
  return [...folds.values()];
}

export function statusLabel(s: HostStatus): string {
  switch (s.kind) {
    case 'exit':
      return s.code === 0 ? 'ok' : `exit ${s.code}`;
    case 'signal':
      return `killed by ${s.signal}`;
    case 'timeout':
      return `timed out after ${s.afterS}s`;
    case 'failed':
      return s.reason;
  }
}

function failureText(s: HostStatus): string {
  return s.kind === 'failed' ? `${s.message}\0${s.hint ?? ''}` : '';
}

/**
 * The folded report: one block per distinct (status, output), then a summary line. For a
 * terminal: what the hosts printed is escaped (terminal-text.ts).
 */
export function renderFolds(folds: readonly Fold[], total: number): string {
  const out: string[] = [];
  for (const f of folds) {
    const label = statusLabel(f.status);
    const quiet = f.output === '' && f.status.kind === 'exit' && f.status.code === 0;
    if (quiet) continue;
    out.push(`== ${compressHosts(f.hosts)} (${f.hosts.length})${label === 'ok' ? '' : `: ${label}`} ==`);
    if (f.output !== '') out.push(f.output.endsWith('\n') ? f.output.slice(0, -1) : f.output);
    if (f.status.kind === 'failed') {
      out.push(f.status.message);
      if (f.status.hint) out.push(`  hint: ${f.status.hint}`);
    }
  }
  out.push(summaryLine(folds, total));
  return safeText(out.join('\n')) + '\n';
}

export function summaryLine(folds: readonly Fold[], total: number): string {
  const counts = new Map<string, number>();
  for (const f of folds) {
    const label = statusLabel(f.status);
    counts.set(label, (counts.get(label) ?? 0) + f.hosts.length);
  }
  const parts = [...counts].sort(([a], [b]) => (a === 'ok' ? -1 : b === 'ok' ? 1 : 0)).map(([l, n]) => `${n} ${l}`);
  return `${total} host(s): ${parts.join(', ')}`;
}

/** The worst exit code of the hosts: the highest, as pdsh -S. */
export function worstCode(results: readonly HostResult[]): number {
  return results.reduce((worst, r) => Math.max(worst, r.status.code), 0);
}
