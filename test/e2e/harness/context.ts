import { inject } from 'vitest';
import type { TestHostsInfo } from './types.js'; // also declares inject('testHosts')

/** The hosts global-setup created; pass them (or their ns names) to the netns-hosts helpers. */
export function getTestHosts(): TestHostsInfo {
  return inject('testHosts');
}

/** The python a test's Dask client runs: the hosts' version (a client must match it). */
export function clientPython(): string {
  return getTestHosts().python;
}
