// ~/.ssh/config lookup with OpenSSH semantics: sections are read top to bottom, the
// first value obtained for a keyword wins (IdentityFile accumulates), Host patterns
// use * and ?, a matching !pattern excludes the section. The ssh-config package only
// parses: its compute() may run `Match exec` commands and nslookup, and treats "?"
// as "zero or one character", so matching is done here.
import SSHConfig, { LineType, type Directive, type Line } from 'ssh-config';

export interface SshHostConfig {
  hostname: string;
  user?: string;
  port?: number;
  /** As written (tokens expanded, "~" not). */
  identityFiles: string[];
  /** Raw ProxyJump value; undefined when unset or "none". */
  proxyJump?: string;
}

export type SshResolver = (alias: string) => SshHostConfig;

export function resolveSshHost(alias: string, sshConfigText: string | undefined): SshHostConfig {
  return createSshResolver(sshConfigText)(alias);
}

/** Parses once; resolving hundreds of hosts should not re-parse the file each time. */
export function createSshResolver(sshConfigText: string | undefined): SshResolver {
  const lines = sshConfigText ? [...SSHConfig.parse(sshConfigText)] : [];
  return (alias) => toHostConfig(alias, collect(lines, alias));
}

type Collected = Map<string, string[]>;

function collect(lines: Line[], alias: string): Collected {
  const found: Collected = new Map();
  for (const line of lines) {
    if (line.type !== LineType.DIRECTIVE) continue;
    const kw = line.param.toLowerCase();
    if (kw === 'host' || kw === 'match') {
      if (sectionApplies(line, alias, found) && 'config' in line) {
        for (const inner of line.config) if (inner.type === LineType.DIRECTIVE) take(found, inner);
      }
    } else {
      take(found, line);
    }
  }
  return found;
}

function take(found: Collected, d: Directive): void {
  const kw = d.param.toLowerCase();
  const value = valueOf(d);
  const prev = found.get(kw);
  if (kw === 'identityfile') found.set(kw, [...(prev ?? []), value]);
  else if (!prev) found.set(kw, [value]);
}

function valueOf(d: Directive): string {
  return typeof d.value === 'string' ? d.value : d.value.map((v) => v.val).join(' ');
}

function words(d: Directive): string[] {
  return typeof d.value === 'string' ? d.value.split(/\s+/).filter(Boolean) : d.value.map((v) => v.val);
}

function sectionApplies(line: Directive, alias: string, found: Collected): boolean {
  if (line.param.toLowerCase() === 'host') return matchesPatternList(words(line), alias);
  // Match: only the criteria that can be decided without running anything. Others
  // (exec, user, localuser, canonical, final) are treated as not matching.
  const w = words(line);
  if (w.length === 1 && w[0]?.toLowerCase() === 'all') return true;
  for (let i = 0; i < w.length; i += 2) {
    const crit = w[i]?.toLowerCase();
    const arg = w[i + 1] ?? '';
    const hostname = expandTokens(found.get('hostname')?.[0] ?? alias, alias);
    if (crit === 'host' && matchesPatternList(arg.split(','), hostname)) continue;
    if (crit === 'originalhost' && matchesPatternList(arg.split(','), alias)) continue;
    return false;
  }
  return w.length > 0;
}

export function matchesPatternList(patterns: string[], host: string): boolean {
  let matched = false;
  for (const p of patterns) {
    if (p.startsWith('!')) {
      if (globMatch(p.slice(1), host)) return false;
    } else if (globMatch(p, host)) {
      matched = true;
    }
  }
  return matched;
}

function globMatch(pattern: string, text: string): boolean {
  const re = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${re}$`, 'i').test(text);
}

/** %h is the host being connected to, %n the alias as typed (ssh_config TOKENS). */
function expandTokens(value: string, alias: string, hostname = alias): string {
  return value.replace(/%([%hn])/g, (_, t: string) => (t === '%' ? '%' : t === 'h' ? hostname : alias));
}

function toHostConfig(alias: string, found: Collected): SshHostConfig {
  const first = (kw: string) => found.get(kw)?.[0];
  const port = first('port');
  const proxyJump = first('proxyjump');
  const hostname = expandTokens(first('hostname') ?? alias, alias);
  const out: SshHostConfig = {
    hostname,
    identityFiles: (found.get('identityfile') ?? []).map((f) => expandTokens(f, alias, hostname)),
  };
  const user = first('user');
  if (user !== undefined) out.user = user;
  if (port !== undefined) {
    const n = Number(port);
    if (!Number.isInteger(n) || n < 1 || n > 65535) throw new Error(`bad Port "${port}" for ${alias}`);
    out.port = n;
  }
  if (proxyJump !== undefined && proxyJump.toLowerCase() !== 'none') out.proxyJump = proxyJump;
  return out;
}
