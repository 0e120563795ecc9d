import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import {
  daskVersionOf,
  ensureTrixieRoot,
  isDaskLine,
  mountsUnder,
  SYSTEM_PYTHON,
  writeChrootPython,
} from './dask-versions.js';
import { createTestHosts } from './netns-hosts.js';
import type { TestHostsInfo } from './types.js';

/**
 * One set of sshd hosts per e2e project; files run one after another. The project's
 * `provide.daskLine` picks the Dask its host files use; both interpreters are always
 * there, for tests that mix versions.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const count = Number(process.env.SSHC_E2E_HOSTS ?? 5);
  if (!Number.isInteger(count) || count < 1 || count > 200)
    throw new Error(`SSHC_E2E_HOSTS: expected 1..200, got ${process.env.SSHC_E2E_HOSTS}`);
  const dask = project.getProvidedContext().daskLine ?? '2022.12';
  if (!isDaskLine(dask))
    throw new Error(`vitest project ${project.name}: provide.daskLine ${String(dask)} is not a known Dask line`);
  const trixieRoot = ensureTrixieRoot();
  // The login user's ~/.bashrc on the hosts: one of ours, run by every SSH exec as a real
  // one is, not this machine's (whose `pyenv init` now and then prints a rehash race to
  // stderr, into the output tests compare). bench/ measures with a slow one and this
  // machine's own.
  const rcDir = mkdtempSync(path.join(os.tmpdir(), 'sshc-e2e-rc-'));
  const bashrc = path.join(rcDir, 'bashrc');
  writeFileSync(bashrc, "# sshcluster e2e: the login user's ~/.bashrc on the test hosts\nexport SSHC_E2E_LOGIN_RC=1\n");
  const removeRc = () => rmSync(rcDir, { recursive: true, force: true });
  // Without a ~/.bashrc here the hosts' shells read none: nothing to stand in for.
  const standIn = existsSync(path.join(os.homedir(), '.bashrc')) ? { bashrc } : {};
  const { teardown, ...rest } = await createTestHosts({
    count,
    forceLoopback: process.env.SSHC_E2E_FORCE_LOOPBACK === '1',
    ...standIn,
  }).catch((err: unknown) => {
    removeRc();
    throw err;
  });
  try {
    const pythons = { '2022.12': SYSTEM_PYTHON, '2024.12': writeChrootPython(rest.dir, trixieRoot) };
    const python = pythons[dask];
    const daskVersion = daskVersionOf(python);
    if (!daskVersion.startsWith(`${dask}.`))
      throw new Error(`e2e: ${python} has distributed ${daskVersion}, expected ${dask}.x`);
    process.stderr.write(
      `e2e: project ${project.name}: hosts run distributed ${daskVersion} (remote_python ${python})\n`,
    );
    const info: TestHostsInfo = { ...rest, dask, daskVersion, python, pythons, trixieRoot };
    project.provide('testHosts', info);
  } catch (err) {
    await teardown();
    removeRc();
    throw err;
  }
  return async () => {
    await teardown();
    removeRc();
    // Each chroot'ed process mounts in a namespace of its own: none may show up here.
    const left = mountsUnder(trixieRoot);
    if (left.length) throw new Error(`e2e: mounts left under ${trixieRoot}: ${left.join(', ')}`);
  };
}
