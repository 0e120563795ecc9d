// Client authentication in OpenSSH's order: agent, then each identity file that
// exists, then a password. Secrets are fetched lazily, only when their method is
// reached, and never leave this module except to ssh2.
import { ssh2 } from './ssh2.js';
import type { AnyAuthMethod, AuthenticationType, AuthHandlerMiddleware } from 'ssh2';
import { DEFAULT_IDENTITY_FILES } from '../config/defaults.js';
import type { ConnectSpec, SecretSource } from '../config/spec.js';

export interface SecretProvider {
  /** `what` says what is asked for, e.g. "password for root@node1"; never logged with the answer. */
  get(source: SecretSource, what: string): Promise<string>;
}

export interface AuthContext {
  readFile(path: string): Buffer | string;
  secrets: SecretProvider;
}

/** What happened during authentication; labels only, never secrets. */
export interface AuthState {
  tried: string[];
  notes: string[];
  /** Label of the method currently being tried; the successful one after 'ready'. */
  current?: string;
}

type Candidate = () => Promise<{ label: string; method: AnyAuthMethod } | undefined>;

/**
 * An ssh2 authHandler. `hold` wraps waits on the user (secret prompts) so the caller
 * can stop its handshake timer meanwhile.
 */
export function makeAuthHandler(
  spec: ConnectSpec,
  ctx: AuthContext,
  state: AuthState,
  hold: <T>(p: Promise<T>) => Promise<T>,
): AuthHandlerMiddleware {
  const queue = candidates(spec, ctx, state, hold);
  return (authsLeft, _partial, next) => {
    void (async () => {
      for (;;) {
        const entry = queue.shift();
        if (!entry) return next(false as unknown as AuthenticationType);
        if (authsLeft && !authsLeft.includes(entry.type)) continue;
        const attempt = await entry.make();
        if (!attempt) continue;
        state.current = attempt.label;
        state.tried.push(attempt.label);
        return next(attempt.method);
      }
    })();
  };
}

interface Queued {
  /** The SSH method name the server must still allow for this candidate. */
  type: AuthenticationType;
  make: Candidate;
}

function candidates(
  spec: ConnectSpec,
  ctx: AuthContext,
  state: AuthState,
  hold: <T>(p: Promise<T>) => Promise<T>,
): Queued[] {
  const username = spec.username;
  const queue: Queued[] = [];
  if (spec.agent) {
    const agent = spec.agent;
    queue.push({
      type: 'publickey',
      make: async () => ({ label: 'agent', method: { type: 'agent', username, agent } }),
    });
  }
  for (const file of spec.identityFiles) {
    queue.push({ type: 'publickey', make: () => identity(file, spec, ctx, state, hold) });
  }
  if (spec.password) {
    const source = spec.password;
    queue.push({
      type: 'password',
      make: async () => {
        const password = await fetchSecret(
          ctx,
          source,
          `password for ${username}@${spec.alias}`,
          state,
          'password',
          hold,
        );
        return password === undefined
          ? undefined
          : { label: 'password', method: { type: 'password', username, password } };
      },
    });
  }
  return queue;
}

async function identity(
  file: string,
  spec: ConnectSpec,
  ctx: AuthContext,
  state: AuthState,
  hold: <T>(p: Promise<T>) => Promise<T>,
): Promise<{ label: string; method: AnyAuthMethod } | undefined> {
  let data: Buffer | string;
  try {
    data = ctx.readFile(file);
  } catch (err) {
    // Like OpenSSH: a default identity that does not exist is skipped silently; one that
    // was named (identity_file, IdentityFile) is said, so a failed login names it.
    if (!DEFAULT_IDENTITY_FILES.some((d) => file.endsWith(d.slice(1)))) {
      const code = (err as NodeJS.ErrnoException).code;
      state.notes.push(
        `skipped ${file}: ${code === 'ENOENT' || code === 'ENOTDIR' ? 'does not exist' : 'cannot be read'}`,
      );
    }
    return undefined;
  }
  const label = `publickey ${file}`;
  const parsed = ssh2().utils.parseKey(data);
  if (!(parsed instanceof Error)) {
    // ssh2 parses a public key too, then skips it without a word.
    if (!parsed.isPrivateKey()) {
      state.notes.push(
        `skipped ${file}: a public key; identity_file names the private one (usually the same path without .pub)`,
      );
      return undefined;
    }
    return { label, method: { type: 'publickey', username: spec.username, key: data } };
  }
  if (!/encrypted/i.test(parsed.message)) {
    state.notes.push(`skipped ${file}: not a usable private key`);
    return undefined;
  }
  if (!spec.passphrase) {
    state.notes.push(`skipped ${file}: encrypted and no passphrase configured`);
    return undefined;
  }
  const passphrase = await fetchSecret(ctx, spec.passphrase, `passphrase for ${file}`, state, file, hold);
  if (passphrase === undefined) return undefined;
  if (ssh2().utils.parseKey(data, passphrase) instanceof Error) {
    state.notes.push(`skipped ${file}: the passphrase does not decrypt it`);
    return undefined;
  }
  return { label, method: { type: 'publickey', username: spec.username, key: data, passphrase } };
}

async function fetchSecret(
  ctx: AuthContext,
  source: SecretSource,
  what: string,
  state: AuthState,
  label: string,
  hold: <T>(p: Promise<T>) => Promise<T>,
): Promise<string | undefined> {
  try {
    return await hold(ctx.secrets.get(source, what));
  } catch (err) {
    // The provider's message says why (e.g. which variable is unset); it holds no secret.
    const why = err instanceof Error ? err.message : String(err);
    state.notes.push(`skipped ${label}: ${why}`);
    return undefined;
  }
}

/** The hash each of ssh2's RSA signature algorithms signs with (its getKeyAlgos); none for other key types. */
const RSA_HASH: Readonly<Record<string, string>> = {
  'rsa-sha2-256': 'sha256',
  'rsa-sha2-512': 'sha512',
  'ssh-rsa': 'sha1',
};

interface SigningKey {
  isPrivateKey(): boolean;
  sign(data: Buffer, hash?: string): Buffer | Error;
}
type AuthPK = (
  username: string,
  key: unknown,
  keyAlgo?: string,
  cbSign?: (data: Buffer, cb: (sig: Buffer) => void) => void,
) => void;

const canSign = (key: unknown): key is SigningKey =>
  typeof (key as Partial<SigningKey> | null)?.isPrivateKey === 'function' && (key as SigningKey).isPrivateKey();

/**
 * Call right after `client.connect()`: a key file's first publickey request goes out
 * signed, as OpenSSH's client sends it for a key it holds, instead of ssh2's unsigned
 * "would you accept this key?" first. That saves each connection one round trip to the
 * server (and sshd's authorized_keys lookup for it). An agent's keys, which ssh2 holds
 * only the public half of, still ask first; so does a key that fails to sign here.
 */
export function signFirstRequest(client: object): void {
  const proto = (client as { _protocol?: { authPK?: AuthPK } })._protocol;
  const authPK = proto?.authPK;
  if (!proto || typeof authPK !== 'function') return;
  proto.authPK = (username, key, keyAlgo, cbSign) => {
    if (cbSign || !canSign(key)) return authPK.call(proto, username, key, keyAlgo, cbSign);
    const hash = keyAlgo === undefined ? undefined : RSA_HASH[keyAlgo];
    let signature: Buffer | Error | undefined;
    authPK.call(proto, username, key, keyAlgo, (data, send) => {
      signature = key.sign(data, hash);
      if (!(signature instanceof Error)) send(signature);
    });
    if (signature instanceof Error) authPK.call(proto, username, key, keyAlgo);
  };
}
