// `sshcluster check` output: an aligned table, one row per host, then the problems with
// their fixes and a verdict; or one JSON document.
import type { ClusterCertificates } from './check-certs.js';
import path from 'node:path';
import { jsonText } from '../../events/terminal-text.js';
import { compressHosts } from '../hosts/compress-hosts.js';
import type { CheckReport, CheckRow, Problem } from './check-evaluate.js';
import { resourcesCell } from './check-resources.js';

const COLUMNS = [
  'HOST',
  'ROLE',
  'SSH',
  'AUTH',
  'HOST KEY',
  'PYTHON',
  'DASK',
  'DISTRIBUTED',
  'TLS',
  'CORES',
  'MEMORY',
  'GPUS',
  'RESOURCES',
  'NETWORK',
  'CLOCK',
];

export function renderCheck(report: CheckReport): string {
  const cells = [COLUMNS, ...report.rows.map(rowCells)];
  const widths = COLUMNS.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const table = cells.map((r) =>
    r
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd(),
  );
  const out = [...table, ''];
  const folded = foldProblems(report.problems);
  if (folded.length) {
    out.push('Problems:');
    for (const p of folded) {
      out.push(`  ${p.severity === 'error' ? 'ERROR' : 'WARN '} ${p.hosts}: ${p.message}`);
      out.push(`        fix: ${p.hint}`);
    }
    out.push('');
  }
  out.push(verdict(report));
  return out.join('\n') + '\n';
}

export function verdict(report: CheckReport): string {
  const errors = report.problems.filter((p) => p.severity === 'error');
  const warnings = report.problems.length - errors.length;
  const hosts = new Set(errors.map((p) => p.host)).size;
  const w = warnings ? `, ${warnings} warning(s)` : '';
  return report.launchable
    ? `Launchable: ${report.rows.length} host(s) checked${w}.`
    : `Not launchable: ${errors.length} error(s) on ${hosts} host(s)${w}.`;
}

/** The same problem on many hosts is listed once, with the hosts folded. */
function foldProblems(
  problems: readonly Problem[],
): { hosts: string; severity: Problem['severity']; message: string; hint: string }[] {
  const groups = new Map<string, { hosts: string[]; p: Problem }>();
  for (const p of problems) {
    const key = `${p.severity}\0${p.message}\0${p.hint}`;
    const g = groups.get(key);
    if (g) g.hosts.push(p.host);
    else groups.set(key, { hosts: [p.host], p });
  }
  return [...groups.values()].map(({ hosts, p }) => ({
    hosts: compressHosts(hosts),
    severity: p.severity,
    message: p.message,
    hint: p.hint,
  }));
}

function rowCells(r: CheckRow): string[] {
  const c = r.connect;
  if (!c.ok) {
    const key =
      c.reason === 'host-key'
        ? /mismatch/.test(c.message)
          ? 'mismatch'
          : /revoked/.test(c.message)
            ? 'revoked'
            : 'unknown'
        : '-';
    return [
      r.host,
      r.role,
      c.reason,
      '-',
      key,
      '-',
      '-',
      '-',
      '-',
      '-',
      '-',
      '-',
      resourcesCell(r.resources),
      '-',
      '-',
    ];
  }
  const p = r.probe;
  const python = !p ? '?' : p.pythonPath ? `${p.pythonPath} ${p.pythonVersion ?? '(failed)'}` : 'not found';
  const mod = (v: string | undefined, e: string | undefined): string => v ?? (e !== undefined ? 'missing' : '-');
  return [
    r.host,
    r.role,
    'ok',
    shortAuth(c.authMethod),
    c.hostKey,
    python,
    mod(p?.dask, p?.daskError),
    mod(p?.distributed, p?.distributedError),
    tlsCell(p),
    p?.cores !== undefined ? String(p.cores) : '-',
    p?.memoryBytes !== undefined ? `${(p.memoryBytes / 2 ** 30).toFixed(1)}G` : '-',
    p ? String(p.gpus.length) : '-',
    resourcesCell(r.resources),
    network(r),
    r.clockOffsetS !== undefined ? `${r.clockOffsetS >= 0 ? '+' : ''}${r.clockOffsetS.toFixed(2)}s` : '-',
  ];
}

/** The highest TLS version Python's ssl offers: what Dask's comms can use. */
function tlsCell(p: CheckRow['probe']): string {
  if (!p?.pythonVersion) return '-';
  if (p.sslError !== undefined) return 'no ssl';
  if (!p.ssl) return '?';
  return p.ssl.tls13 ? '1.3' : p.ssl.tls12 ? '1.2' : 'NO 1.2';
}

function shortAuth(method: string): string {
  const m = /^publickey (.+)$/.exec(method);
  return m ? `key ${path.basename(m[1]!)}` : method;
}

function network(r: CheckRow): string {
  const parts: string[] = [];
  const ports = r.ports;
  if (ports?.kind === 'tested') {
    parts.push(
      `:${ports.port} ${ports.scheduler === undefined ? 'free' : 'TAKEN'}`,
      `:${ports.dashboardPort} ${ports.dashboard === undefined ? 'free' : 'TAKEN'}`,
    );
  } else if (ports) parts.push(`ports not tested`);
  const reach = r.reach;
  if (reach?.kind === 'ok') parts.push(`→ ${reach.target} ok`);
  else if (reach?.kind === 'failed') parts.push(`→ ${reach.target} FAILED`);
  else if (reach) parts.push(`→ not tested (${reach.why})`);
  return parts.join(', ') || '-';
}

/** certs: the running cluster's (check-certs.ts), as `certificates: {cluster, notAfter, expiresInDays, warning}`. */
export function checkJson(report: CheckReport, certs?: ClusterCertificates): string {
  const summary = {
    launchable: report.launchable,
    hosts: report.rows.length,
    errors: report.problems.filter((p) => p.severity === 'error').length,
    warnings: report.problems.filter((p) => p.severity === 'warning').length,
  };
  const certificates = certs ? { certificates: { cluster: certs.cluster, ...certs.certificates } } : {};
  return jsonText({ rows: report.rows, summary, ...certificates }, 2) + '\n';
}
