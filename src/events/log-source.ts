// The name a process's log lines carry wherever they are shown (`logs`, the dashboard's
// log view, `up` off a terminal), so a line reads the same in all of them.

/**
 * The scheduler's lines name its host (`node0/scheduler`); a worker's name already
 * starts with its host (`node1-0`). Without a known host (a run read after `down`), the
 * name alone.
 */
export function logSource(name: string, host: string | undefined): string {
  return host && name === 'scheduler' ? `${host}/scheduler` : name;
}
