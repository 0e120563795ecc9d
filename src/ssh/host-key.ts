// The host key decision of StrictHostKeyChecking yes / accept-new / no, as an ssh2
// hostVerifier. A refusal is kept as an SshError, because ssh2 itself only reports
// "verification failed".
import type { Algorithms } from 'ssh2';
import type { ConnectSpec } from '../config/spec.js';
import {
  checkHostKey,
  fingerprint,
  formatKnownHostsLine,
  hostLookupName,
  keyTypeOfBlob,
  knownKeyTypes,
} from './known-hosts.js';
import { SshError } from './ssh-error.js';
import { quoteWord } from '../shell-word.js';

export interface HostKeyContext {
  appendFile(path: string, text: string): void | Promise<void>;
}

export interface HostKeyOutcome {
  /** Set when the key was refused. */
  failure?: SshError;
  notes: string[];
}

type Verify = (valid: boolean) => void;

export function makeHostVerifier(
  spec: ConnectSpec,
  knownHostsText: string,
  ctx: HostKeyContext,
  outcome: HostKeyOutcome,
  hold: <T>(p: Promise<T>) => Promise<T>,
): (key: Buffer, verify: Verify) => void {
  return (key, verify) => {
    const keyType = keyTypeOfBlob(key) ?? 'unknown';
    const check = checkHostKey(knownHostsText, spec.hostname, spec.port, keyType, key);
    const policy = spec.strictHostKeyChecking;
    if (check.status === 'match' || policy === 'no') return verify(true);
    if (check.status === 'mismatch') {
      outcome.failure = mismatchError(spec, check.expectedFingerprints, fingerprint(key));
      return verify(false);
    }
    if (policy === 'yes') {
      outcome.failure = unknownKeyError(spec, fingerprint(key));
      return verify(false);
    }
    const sep = knownHostsText === '' || knownHostsText.endsWith('\n') ? '' : '\n';
    const line = `${sep}${formatKnownHostsLine(spec.hostname, spec.port, keyType, key)}\n`;
    hold(Promise.resolve().then(() => ctx.appendFile(spec.knownHosts, line))).then(
      () => verify(true),
      (err: unknown) => {
        // OpenSSH goes on when it cannot record the key; so do we, and say so.
        const why = err instanceof Error ? err.message : String(err);
        outcome.notes.push(`could not add the host key to ${spec.knownHosts}: ${why}`);
        verify(true);
      },
    );
  };
}

function removeCommand(spec: ConnectSpec): string {
  const name = hostLookupName(spec.hostname, spec.port);
  const quoted = spec.port === 22 ? name : `'${name}'`;
  return `ssh-keygen -R ${quoted} -f ${spec.knownHosts}`;
}

function mismatchError(spec: ConnectSpec, expected: string[], offered: string): SshError {
  const where = `${spec.hostname}:${spec.port}`;
  const message =
    expected.length > 0
      ? `host key mismatch for ${where}: ${spec.knownHosts} has ${expected.join(', ')}, the server offered ${offered}`
      : `host key for ${where} is marked @revoked in ${spec.knownHosts}: the server offered ${offered}`;
  return new SshError('host-key', spec.alias, message, {
    hint: `someone may be intercepting the connection; if the host was reinstalled, remove the old key with \`${removeCommand(spec)}\``,
  });
}

function unknownKeyError(spec: ConnectSpec, offered: string): SshError {
  return new SshError(
    'host-key',
    spec.alias,
    `host key for ${spec.hostname}:${spec.port} is not in ${spec.knownHosts} (the server offered ${offered})`,
    {
      hint: `verify the fingerprint, then add it with \`${addCommand(spec)}\` (answer yes), or set strict_host_key_checking: accept-new`,
    },
  );
}

/** An OpenSSH command that records the key where sshcluster reads it (not only ~/.ssh/known_hosts). */
function addCommand(spec: ConnectSpec): string {
  const at = (s: ConnectSpec, port: boolean) =>
    `${s.username}@${s.hostname}${port && s.port !== 22 ? `:${s.port}` : ''}`;
  const jump = spec.proxyJump.length ? ` -J ${spec.proxyJump.map((j) => at(j, true)).join(',')}` : '';
  const port = spec.port === 22 ? '' : ` -p ${spec.port}`;
  return `ssh -o UserKnownHostsFile=${quoteWord(spec.knownHosts)}${jump}${port} ${at(spec, false)} true`;
}

// ssh2's default order, as of v1.17.
const DEFAULT_HOST_KEY_ALGOS = [
  'ssh-ed25519',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'rsa-sha2-512',
  'rsa-sha2-256',
  'ssh-rsa',
] as const;
type HostKeyAlgo = (typeof DEFAULT_HOST_KEY_ALGOS)[number];

/**
 * Like OpenSSH, prefer the key types known_hosts already holds for this host, so a
 * host known by its RSA key is not reported "unknown" because ed25519 was negotiated.
 */
export function hostKeyAlgorithms(spec: ConnectSpec, knownHostsText: string): Algorithms | undefined {
  const known = knownKeyTypes(knownHostsText, spec.hostname, spec.port);
  if (known.length === 0) return undefined;
  const preferred = (algo: HostKeyAlgo): boolean =>
    known.includes(algo) || (known.includes('ssh-rsa') && algo.startsWith('rsa-sha2-'));
  const first = DEFAULT_HOST_KEY_ALGOS.filter(preferred);
  const rest = DEFAULT_HOST_KEY_ALGOS.filter((a) => !preferred(a));
  return { serverHostKey: [...first, ...rest] };
}
