import type { TestProject } from 'vitest/node';
import { createTestHosts } from './netns-hosts.js';
import type { TestHostsInfo } from './types.js';

/** One set of sshd hosts for the whole e2e project; files run one after another. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const count = Number(process.env.SSHC_E2E_HOSTS ?? 5);
  if (!Number.isInteger(count) || count < 1 || count > 200) throw new Error(`SSHC_E2E_HOSTS: expected 1..200, got ${process.env.SSHC_E2E_HOSTS}`);
  const { teardown, ...rest } = await createTestHosts({ count, forceLoopback: process.env.SSHC_E2E_FORCE_LOOPBACK === '1' });
  const info: TestHostsInfo = rest;
  project.provide('testHosts', info);
  return teardown;
}
