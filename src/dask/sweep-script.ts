// The last look at a host, as shell text run in one login shell: list what of the
// cluster still runs there, and if anything does, the whole stop escalation (TERM, the
// grace, KILL, the verify) in the same shell, re-listing at each step so that nothing
// that appears meanwhile is missed. A slow rc file is paid once per host, however the
// look turns out, where a stop from the controller cost one exec per signal and per look.

/** How long to wait after TERM (0: KILL at once) and after KILL, in ms. */
export interface SweepEscalation {
  graceMs: number;
  verifyMs: number;
}

/** What a sweep's output says: /proc stat lines found at first, then still there after TERM (so KILLed), then left. */
export interface SweepReport {
  found: string[];
  forced: string[];
  left: string[];
}

const POLL_MS = 100;
const prefixes = ['found', 'forced', 'left'] as const;

/**
 * Shell lines that run `scan` (prints a `/proc/<pid>/stat` line per process of ours)
 * and stop what it finds; they `exit 0` when something is left, and otherwise fall
 * through to what follows (the removal of the cluster's files).
 */
export function sweepLines(scan: string, esc: SweepEscalation): string[] {
  const polls = (ms: number) => Math.max(1, Math.ceil(ms / POLL_MS));
  const say = (what: (typeof prefixes)[number]) => `printf '%s\\n' "$__sshc_found" | sed 's/^/${what} /'`;
  const signal = (sig: string) => `kill -${sig} $(printf '%s\\n' "$__sshc_found" | cut -d' ' -f1) 2>/dev/null`;
  return [
    `__sshc_scan() { ${scan}; }`,
    // `sleep 0.1` where sleep takes fractions (GNU, busybox), else a second.
    `__sshc_wait() { __sshc_i=0; while [ -n "$__sshc_found" ] && [ $__sshc_i -lt $1 ]; do ` +
      `sleep 0.1 2>/dev/null || sleep 1; __sshc_found=$(__sshc_scan); __sshc_i=$((__sshc_i + 1)); done; }`,
    '__sshc_found=$(__sshc_scan)',
    'if [ -n "$__sshc_found" ]; then',
    say('found'),
    ...(esc.graceMs > 0 ? [`${signal('TERM')}; __sshc_wait ${polls(esc.graceMs)}`] : []),
    `if [ -n "$__sshc_found" ]; then ${say('forced')}; ${signal('KILL')}; __sshc_wait ${polls(esc.verifyMs)}; fi`,
    `if [ -n "$__sshc_found" ]; then ${say('left')}; exit 0; fi`,
    'fi',
  ];
}

/** The sweep's stdout, by section; lines of anything else (the removal's) are ignored. */
export function parseSweep(stdout: string): SweepReport {
  const report: SweepReport = { found: [], forced: [], left: [] };
  for (const line of stdout.split('\n')) {
    const space = line.indexOf(' ');
    const key = line.slice(0, space) as (typeof prefixes)[number];
    if (space > 0 && prefixes.includes(key)) report[key].push(line.slice(space + 1));
  }
  return report;
}
