// ConnectSpec for a host and its ProxyJump hops. Precedence, most specific first:
// "user@host:port" in the host list > connect_options (host, then top level) >
// ~/.ssh/config > defaults. A hop's own "user@" and ~/.ssh/config come before the
// file's connect_options, which it inherits as defaults (not its password or port).
import { isAbsolute, join, resolve } from 'node:path';
import {
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_IDENTITY_FILES,
  DEFAULT_KNOWN_HOSTS,
  DEFAULT_SSH_PORT,
} from '../defaults.js';
import { parseJumpList } from './host-address.js';
import type { HostAddress, RawConnectOptions } from '../schema.js';
import type { ConnectSpec } from '../spec.js';
import type { SshHostConfig, SshResolver } from './ssh-config.js';
import { configError, type Where } from '../config-error.js';

export interface ConnectContext {
  resolveSsh: SshResolver;
  env: Record<string, string | undefined>;
  homedir: string;
  cwd: string;
  username: string;
  /** Relative paths in the host file are relative to the file. */
  fileDir: string;
}

export function buildConnect(
  address: HostAddress,
  opts: RawConnectOptions,
  ctx: ConnectContext,
  where: Where,
): ConnectSpec {
  const ssh = lookup(address.host, ctx, where);
  const hops = opts.proxy_jump ?? configJumps(ssh, address.host, where);
  return {
    alias: address.host,
    hostname: ssh.hostname,
    port: address.port ?? opts.port ?? ssh.port ?? DEFAULT_SSH_PORT,
    username: address.user ?? opts.username ?? ssh.user ?? ctx.username,
    identityFiles: opts.identity_file
      ? opts.identity_file.map((f) => expandPath(f.path, ctx.fileDir, ctx.homedir))
      : configIdentities(ssh, ctx),
    ...(opts.password ? { password: opts.password } : {}),
    ...shared(opts, ctx),
    proxyJump: hops.map((hop, i) => buildHop(hop, opts, ctx, where, i === 0 ? [address.host] : undefined)),
  };
}

/** `chain` is set for the first hop only: later hops are reached through it, so their own ProxyJump does not apply (as with `ssh -J a,b`). */
function buildHop(
  hop: HostAddress,
  inherited: RawConnectOptions,
  ctx: ConnectContext,
  where: Where,
  chain?: string[],
): ConnectSpec {
  if (chain?.includes(hop.host)) {
    throw configError(
      where,
      `ProxyJump loop: ${[...chain, hop.host].join(' -> ')}`,
      'add "ProxyJump none" for the jump host in ~/.ssh/config, or set proxy_jump explicitly',
    );
  }
  const ssh = lookup(hop.host, ctx, where);
  const own = chain && ssh.proxyJump ? configJumps(ssh, hop.host, where) : [];
  const identityFiles =
    ssh.identityFiles.length > 0 || !inherited.identity_file
      ? configIdentities(ssh, ctx)
      : inherited.identity_file.map((f) => expandPath(f.path, ctx.fileDir, ctx.homedir));
  return {
    alias: hop.host,
    hostname: ssh.hostname,
    port: hop.port ?? ssh.port ?? DEFAULT_SSH_PORT,
    username: hop.user ?? ssh.user ?? inherited.username ?? ctx.username,
    identityFiles,
    ...shared(inherited, ctx),
    proxyJump: own.map((h, i) =>
      buildHop(h, inherited, ctx, where, i === 0 ? [...(chain ?? []), hop.host] : undefined),
    ),
  };
}

function shared(opts: RawConnectOptions, ctx: ConnectContext) {
  const agent = agentSocket(opts, ctx);
  return {
    ...(agent ? { agent } : {}),
    ...(opts.passphrase ? { passphrase: opts.passphrase } : {}),
    knownHosts: expandPath(opts.known_hosts ?? DEFAULT_KNOWN_HOSTS, ctx.fileDir, ctx.homedir),
    strictHostKeyChecking: opts.strict_host_key_checking ?? 'yes',
    connectTimeoutMs: opts.connect_timeout_ms ?? DEFAULT_CONNECT_TIMEOUT_MS,
    ...(opts.command_timeout_ms !== undefined ? { commandTimeoutMs: opts.command_timeout_ms } : {}),
  } as const;
}

export function agentSocket(
  opts: RawConnectOptions,
  ctx: Pick<ConnectContext, 'env' | 'fileDir' | 'homedir'>,
): string | undefined {
  if (opts.agent === false) return undefined;
  if (typeof opts.agent === 'string') return expandPath(opts.agent, ctx.fileDir, ctx.homedir);
  return ctx.env.SSH_AUTH_SOCK || undefined;
}

/** OpenSSH reads relative IdentityFile paths from the current directory. */
function configIdentities(ssh: SshHostConfig, ctx: ConnectContext): string[] {
  const files = ssh.identityFiles.length > 0 ? ssh.identityFiles : DEFAULT_IDENTITY_FILES;
  return files.map((f) => expandPath(f, ctx.cwd, ctx.homedir));
}

function lookup(alias: string, ctx: ConnectContext, where: Where): SshHostConfig {
  try {
    return ctx.resolveSsh(alias);
  } catch (err) {
    throw configError(where, `in ~/.ssh/config: ${(err as Error).message}`);
  }
}

function configJumps(ssh: SshHostConfig, alias: string, where: Where): HostAddress[] {
  if (!ssh.proxyJump) return [];
  try {
    return parseJumpList(ssh.proxyJump);
  } catch (err) {
    throw configError(where, `in ~/.ssh/config ProxyJump for ${alias}: ${(err as Error).message}`);
  }
}

export function expandPath(p: string, base: string, homedir: string): string {
  if (p === '~') return homedir;
  if (p.startsWith('~/')) return join(homedir, p.slice(2));
  return isAbsolute(p) ? p : resolve(base, p);
}
