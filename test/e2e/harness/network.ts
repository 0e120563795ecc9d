import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { run } from './proc.js';

/** What was created so far, so a half-built network can still be torn down. */
export interface NetState {
  namespaces: string[];
  /** Root-namespace links, veths before the bridge. */
  links: string[];
}

export interface NetHost {
  ns: string;
  ip: string;
  link: string;
  gateway: string;
}

/** Hosts per /24: .10 to .249; past that the next block (10.214.<subnet>.0/24, …) on the same bridge. */
const PER_BLOCK = 240;
const blocks = (count: number): number => Math.max(1, Math.ceil(count / PER_BLOCK));
const net24 = (block: number, subnet: number): string => `10.${213 + block}.${subnet}`;

/**
 * A short id and a 10.213.<subnet>.0/24 not on any local interface, so two concurrent
 * runs (or a leftover from a crashed one) rarely clash; with more than 240 hosts, the
 * same <subnet> in 10.214, 10.215, … too.
 */
export function pickRunId(count = 1): { id: string; subnet: number } {
  const addrs = run('ip', ['-4', '-o', 'addr']);
  for (let attempt = 0; attempt < 50; attempt++) {
    const id = randomBytes(2).toString('hex');
    const subnet = (parseInt(id, 16) % 250) + 1;
    const taken = Array.from({ length: blocks(count) }, (_, b) => addrs.includes(`inet ${net24(b, subnet)}.`));
    if (!taken.includes(true)) return { id, subnet };
  }
  throw new Error('no free 10.213.x.0/24 subnet found');
}

/** One bridge in the root namespace, one namespace + veth per host, routed via the bridge. */
export function createNetwork(id: string, subnet: number, count: number, state: NetState): NetHost[] {
  const bridge = `sscbr${id}`;
  run('ip', ['link', 'add', bridge, 'type', 'bridge']);
  state.links.push(bridge);
  for (let b = 0; b < blocks(count); b++) run('ip', ['addr', 'add', `${net24(b, subnet)}.1/24`, 'dev', bridge]);
  run('ip', ['link', 'set', bridge, 'up']);
  const hosts: NetHost[] = [];
  for (let i = 0; i < count; i++) {
    const ns = `ssc${id}h${i}`;
    const veth = `ssc${id}v${i}`;
    const block = net24(Math.floor(i / PER_BLOCK), subnet);
    const [ip, gateway] = [`${block}.${10 + (i % PER_BLOCK)}`, `${block}.1`];
    run('ip', ['netns', 'add', ns]);
    state.namespaces.push(ns);
    run('ip', ['link', 'add', veth, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns]);
    state.links.unshift(veth);
    run('ip', ['link', 'set', veth, 'master', bridge, 'up']);
    run('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
    run('ip', ['-n', ns, 'addr', 'add', `${ip}/24`, 'dev', 'eth0']);
    run('ip', ['-n', ns, 'link', 'set', 'eth0', 'up']);
    run('ip', ['-n', ns, 'route', 'add', 'default', 'via', gateway]);
    // The other blocks are on the same bridge: reached directly, not forwarded by the root namespace.
    for (let b = 0; b < blocks(count); b++)
      if (net24(b, subnet) !== block) run('ip', ['-n', ns, 'route', 'add', `${net24(b, subnet)}.0/24`, 'dev', 'eth0']);
    hosts.push({ ns, ip, link: 'eth0', gateway });
  }
  return hosts;
}

/**
 * With br_netfilter loaded, bridged frames traverse iptables FORWARD; we cannot see
 * the rules here (no iptables binary), so only report the setting for diagnosis.
 */
export function bridgeNetfilterNote(): string {
  const path = '/proc/sys/net/bridge/bridge-nf-call-iptables';
  return existsSync(path) ? `bridge-nf-call-iptables=${readFileSync(path, 'utf8').trim()}` : 'br_netfilter not loaded';
}

function ignorable(err: unknown): boolean {
  return /Cannot find device|No such file|does not exist|Cannot open network namespace/i.test(String(err));
}

/** Deletes namespaces and links; the caller kills processes first. Never throws. */
export function destroyNetwork(state: NetState): string[] {
  const errors: string[] = [];
  for (const ns of state.namespaces.splice(0)) {
    try {
      run('ip', ['netns', 'del', ns]);
    } catch (err) {
      if (!ignorable(err)) errors.push(String(err));
    }
  }
  // Deleting a namespace usually takes its veth peer along; the bridge goes last.
  for (const link of state.links.splice(0)) {
    try {
      run('ip', ['link', 'del', link]);
    } catch (err) {
      if (!ignorable(err)) errors.push(String(err));
    }
  }
  return errors;
}
