import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bridgeNetfilterNote, createNetwork, destroyNetwork, pickRunId, type NetState } from './network.js';
import { cmdlineOf, descendantsOf, isAlive, killAll } from './proc.js';
import { nsPids } from './ns-tools.js';
import { freePort, makeKey, sshdConfig, startSshd, waitForSshd } from './sshd.js';
import type { TestHost, TestHostsNet } from './types.js';
import { onExitCleanup } from './exit-hooks.js';

export type { TestHost, TestHostsInfo, TestHostsNet } from './types.js';
export { nsPids, processesIn, daskProcessesIn, daskRole, runIn, setLink } from './ns-tools.js';
export { writeHostsYaml } from './hosts-yaml.js';

/**
 * Where a cluster keeps its files on a namespace host (cluster-files.py): the hosts
 * share this machine's /tmp and run as its user, with no TMPDIR of their own.
 */
export const hostClusterFilesDir = (clusterId: string): string =>
  join('/tmp', `sshcluster-${process.getuid!()}`, clusterId, 'files');

export interface TestHosts extends TestHostsNet {
  teardown(): Promise<void>;
}

export interface CreateOptions {
  count: number;
  /** Port sshd listens on: inside each namespace (default 22), or the fallback's first port. */
  sshdPort?: number;
  /** Skip namespaces (to exercise the fallback). */
  forceLoopback?: boolean;
  /** A file that stands in for the login user's ~/.bashrc on every host (network namespaces only; see startSshd). */
  bashrc?: string;
}

const say = (line: string) => writeSync(2, `${line}\n`); // sync: also used from 'exit'

interface Placement {
  ns: string;
  ip: string;
  port: number;
  link: string;
  gateway: string;
}

async function place(
  o: CreateOptions,
  net: NetState,
): Promise<{ mode: TestHostsNet['mode']; bridgeIp: string; at: Placement[] }> {
  try {
    if (o.forceLoopback) throw new Error('forced by SSHC_E2E_FORCE_LOOPBACK');
    const { id, subnet } = pickRunId(o.count);
    const at = createNetwork(id, subnet, o.count, net).map((h) => ({ ...h, port: o.sshdPort ?? 22 }));
    return { mode: 'netns', bridgeIp: at[0]?.gateway ?? `10.213.${subnet}.1`, at };
  } catch (err) {
    const partial = destroyNetwork(net);
    const reason = String(err).replace(/^Error: /, '') + (partial.length ? `; cleanup: ${partial.join('; ')}` : '');
    say(`e2e: network namespaces unavailable (${reason}); falling back to sshd on 127.0.0.x loopback aliases`);
    const at: Placement[] = [];
    for (let i = 0; i < o.count; i++) {
      const ip = `127.0.0.${10 + i}`;
      at.push({
        ns: '',
        ip,
        port: o.sshdPort !== undefined ? o.sshdPort + i : await freePort(ip),
        link: 'lo',
        gateway: '127.0.0.1',
      });
    }
    return { mode: 'loopback', bridgeIp: '127.0.0.1', at };
  }
}

export async function createTestHosts(o: CreateOptions): Promise<TestHosts> {
  const t0 = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'sshc-e2e-'));
  const net: NetState = { namespaces: [], links: [] };
  const sshdPids: number[] = [];
  let tornDown = false;
  const teardownSync = (): string[] => {
    if (tornDown) return [];
    tornDown = true;
    unhook();
    const tStart = Date.now();
    const errors: string[] = [];
    // Recorded sshd PIDs are re-checked so a recycled PID is never signalled.
    const pids = new Set(sshdPids.filter((p) => isAlive(p) && cmdlineOf(p).join(' ').includes('sshd')));
    // Loopback mode has no namespace to sweep: take what still hangs below each sshd.
    if (net.namespaces.length === 0) for (const pid of [...pids]) descendantsOf(pid).forEach((d) => pids.add(d));
    for (const ns of net.namespaces) {
      try {
        nsPids(ns).forEach((p) => pids.add(p));
      } catch (err) {
        errors.push(String(err));
      }
    }
    errors.push(...killAll([...pids]), ...destroyNetwork(net));
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch (err) {
      errors.push(String(err));
    }
    say(
      `e2e: teardown killed ${pids.size} processes, removed network and ${dir} in ${Date.now() - tStart}ms` +
        (errors.length ? `; ERRORS:\n  ${errors.join('\n  ')}` : ''),
    );
    return errors;
  };
  const unhook = onExitCleanup(teardownSync);
  try {
    const clientKeyPath = makeKey(join(dir, 'client_ed25519'), 'sshc-e2e-client');
    const authorizedKeys = join(dir, 'authorized_keys');
    copyFileSync(`${clientKeyPath}.pub`, authorizedKeys);
    const { mode, bridgeIp, at } = await place(o, net);
    const started = at.map((p, i) => {
      const hostKey = makeKey(join(dir, `host${i}_ed25519`), `sshc-e2e-host${i}`);
      const cfg = sshdConfig({ ip: p.ip, port: p.port, hostKey, authorizedKeys, pidFile: join(dir, `sshd-${i}.pid`) });
      // The stand-in .bashrc is a bind mount in the host's namespace: loopback hosts have none.
      const handle = startSshd(dir, i, p.ns, cfg, p.ns ? o.bashrc : undefined);
      sshdPids.push(handle.pid);
      const host: TestHost = { name: `host${i}`, ...p, hostKeyPubPath: `${hostKey}.pub`, sshdPid: handle.pid };
      return { host, handle };
    });
    // All start at once: 1,000 sshd on 2 cores need more than the 10 s one needs.
    const waitMs = 10_000 + 50 * o.count;
    await Promise.all(started.map(({ host, handle }) => waitForSshd(handle, host.ip, host.port, waitMs)));
    const hosts = started.map((s) => s.host);
    const knownHostsPath = join(dir, 'known_hosts');
    writeFileSync(
      knownHostsPath,
      hosts
        .map((h) => {
          const [type, key] = readFileSync(h.hostKeyPubPath, 'utf8').trim().split(/\s+/);
          return `${h.port === 22 ? h.ip : `[${h.ip}]:${h.port}`} ${type} ${key}\n`;
        })
        .join(''),
    );
    if (mode === 'netns') {
      say(
        `e2e: ${hosts.length} sshd hosts in netns ${hosts.map((h) => `${h.ns}=${h.ip}`).join(' ')} ` +
          `via bridge ${bridgeIp} in ${Date.now() - t0}ms (${bridgeNetfilterNote()})`,
      );
    }
    const teardown = async () => {
      const errors = teardownSync();
      if (errors.length)
        throw new AggregateError(
          errors.map((e) => new Error(e)),
          'e2e teardown incomplete',
        );
    };
    return { mode, hosts, dir, clientKeyPath, knownHostsPath, bridgeIp, teardown };
  } catch (err) {
    teardownSync();
    throw err;
  }
}
