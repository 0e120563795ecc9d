// The record a controller keeps of its cluster, so that `down` can still find and stop
// every remote process after the controller is gone. Written atomically; a file we do
// not understand or that belongs to another cluster is refused, never overwritten.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import {
  arrayOf,
  bool,
  literal,
  matches,
  nonEmpty,
  nonNegative,
  nullable,
  object,
  oneOf,
  optional,
  positive,
  positiveInt,
  str,
  wholeNumber,
} from './json-check.js';
import type { AdaptiveSpec, ClusterSpec, HostSpec } from '../config/spec.js';
import { ExpectedError } from '../errors.js';

/** A running cluster as its state file records it (the core's live state is cluster/cluster-state.ts). */
export interface ClusterRecord {
  version: 1;
  name: string;
  /** The SSHCLUSTER_ID tag of every remote process. */
  clusterId: string;
  /** Absolute host-file path; undefined for the local cluster. */
  source?: string;
  /** Normalized spec (holds no secrets by construction). */
  spec: ClusterSpec;
  /**
   * orphanGraceS: how long its processes outlive it waiting for a new controller (0: a
   * foreground `up`'s, which stop with it). Absent in older files.
   */
  controller: { pid: number; socket: string; startedAt: string; orphanGraceS?: number } | null;
  schedulerAddress: string;
  dashboardUrl: string;
  processes: { name: string; host: string; role: 'scheduler' | 'worker'; pid?: number }[];
  desiredWorkers: number;
  /** The run whose logs are logs/<runId>/ (log-runs.ts); absent in older files. */
  runId?: string;
  /**
   * The adaptive settings in force (from up, the host file or a later `adapt`), null
   * when the cluster runs at a fixed size: a re-adopting `up` carries them on.
   * Absent in files written before this field existed.
   */
  adaptive?: AdaptiveJson | null;
  /** Hosts taken out by `drain`, kept out by a re-adopting controller. */
  drained?: string[];
  /** Workers an interrupted `apply` had yet to restart: a re-adopting controller restarts them. */
  pendingRoll?: string[];
  /** Hosts `apply` removed or gave another TMPDIR, still to clear (former-hosts.ts). */
  formerHosts?: HostSpec[];
  /** Workers a drain found no room for, started again at undrain. */
  drainShort?: number;
  /** When the cluster first started: a re-adopting controller keeps it (its uptime). Absent in older files. */
  startedAt?: string;
  /** Hosts no controller of the cluster ever connected to: nothing of it is there. Absent: none (or an older file). */
  unreached?: string[];
  updatedAt: string;
}

/** AdaptiveSpec as JSON has it: an unbounded maximum is null (JSON has no Infinity). */
export type AdaptiveJson = Omit<AdaptiveSpec, 'maximum'> & { maximum: number | null };

export function adaptiveToJson(a: AdaptiveSpec): AdaptiveJson {
  return { ...a, maximum: Number.isFinite(a.maximum) ? a.maximum : null };
}

export function adaptiveFromJson(a: AdaptiveJson): AdaptiveSpec {
  return { ...a, maximum: a.maximum ?? Infinity };
}

export class StateFileError extends ExpectedError {
  constructor(file: string, problem: string, opts: { cause?: unknown; hint?: string } = {}) {
    super(`${file}: ${problem}`, {
      cause: opts.cause,
      hint: opts.hint ?? `move it aside: mv ${file} ${file}.bad, after checking no cluster of that name is running`,
    });
  }
}

// The spec is checked only where a damaged file would hurt (teardown reaches hosts
// through it); the rest is trusted because only this module writes the file.
const host = object({ name: str, connect: object({ hostname: str, port: wholeNumber }) });
const stateShape = object({
  version: literal(1),
  name: nonEmpty,
  clusterId: nonEmpty,
  source: optional(str),
  spec: object({
    name: str,
    local: bool,
    schedulerHost: host,
    schedulerOptions: object({ port: wholeNumber }),
    workerHosts: arrayOf(host),
  }),
  controller: nullable(object({ pid: wholeNumber, socket: str, startedAt: str, orphanGraceS: optional(wholeNumber) })),
  schedulerAddress: str,
  dashboardUrl: str,
  processes: arrayOf(object({ name: str, host: str, role: oneOf('scheduler', 'worker'), pid: optional(wholeNumber) })),
  desiredWorkers: wholeNumber,
  runId: optional(matches(/^[0-9A-Za-z-]+$/)),
  adaptive: optional(
    nullable(
      object({
        minimum: wholeNumber,
        maximum: nullable(wholeNumber),
        intervalMs: positive,
        waitCount: positiveInt,
        targetDurationMs: nonNegative,
      }),
    ),
  ),
  drained: optional(arrayOf(str)),
  pendingRoll: optional(arrayOf(str)),
  formerHosts: optional(arrayOf(host)),
  drainShort: optional(wholeNumber),
  startedAt: optional(str),
  unreached: optional(arrayOf(str)),
  updatedAt: str,
});

export interface StateExpectation {
  name?: string;
  clusterId?: string;
}

/** undefined when there is no file; StateFileError when it is unreadable or someone else's. */
export async function readState(file: string, expect: StateExpectation = {}): Promise<ClusterRecord | undefined> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new StateFileError(file, `cannot read the state file (${(err as Error).message})`, {
      cause: err,
      hint: 'check its permissions',
    });
  }
  const state = parseState(file, text);
  for (const key of ['name', 'clusterId'] as const) {
    const want = expect[key];
    if (want !== undefined && state[key] !== want) {
      throw new StateFileError(file, `belongs to another cluster (${key} is "${state[key]}", expected "${want}")`);
    }
  }
  return state;
}

export function parseState(file: string, text: string): ClusterRecord {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new StateFileError(file, `not valid JSON (${(err as Error).message})`, { cause: err });
  }
  const version = (json as { version?: unknown } | null)?.version;
  if (typeof json === 'object' && json !== null && version !== undefined && version !== 1) {
    throw new StateFileError(
      file,
      `unsupported state file version ${JSON.stringify(version)} (this sshcluster reads version 1)`,
    );
  }
  const problem = recordProblem(json);
  if (problem) throw new StateFileError(file, `not a valid state file: ${problem}`);
  return json as ClusterRecord;
}

/** Why parsed JSON is no state file this reader takes, or undefined. */
function recordProblem(json: unknown): string | undefined {
  const bad = stateShape(json, []);
  if (bad) {
    const message = bad.at(-1)!;
    const where = bad.length > 1 ? bad.slice(0, -1).join('.') : 'top level';
    return `${where}: ${message}`;
  }
  const state = json as ClusterRecord;
  if (state.spec.name !== state.name) return `spec.name "${state.spec.name}" differs from name "${state.name}"`;
  return undefined;
}

export interface WriteStateOptions {
  /**
   * Replace a file that is corrupt or belongs to another cluster (another name or
   * clusterId). Only for a caller that has checked that cluster is gone.
   */
  replace?: boolean;
}

/** Write to a temp file in the same dir, fsync, rename over, fsync the dir. */
export async function writeState(file: string, state: ClusterRecord, opts: WriteStateOptions = {}): Promise<void> {
  // One the reader would refuse would lock every command (and the next write) out of the
  // cluster while its controller runs: the good one there stays.
  // The record itself is checked, not its text parsed again: a 10,000-host one is megabytes.
  const problem = recordProblem(state);
  if (problem) {
    throw new StateFileError(file, `refused to write an invalid state (${problem}); the file there is kept`, {
      hint: 'the controller goes on with what it was told; a re-adopting controller would not know it',
    });
  }
  if (!opts.replace) await readState(file, { name: state.name, clusterId: state.clusterId });
  const dir = path.dirname(file);
  const tmp = path.join(dir, `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const fh = await fs.open(tmp, 'wx', 0o600);
  try {
    await fh.writeFile(JSON.stringify(state, null, 2) + '\n', 'utf8');
    await fh.sync();
    await fh.close();
    await fs.rename(tmp, file);
  } catch (err) {
    await fh.close().catch(() => {});
    await fs.rm(tmp, { force: true });
    throw err;
  }
  const dh = await fs.open(dir, 'r');
  try {
    await dh.sync();
  } finally {
    await dh.close();
  }
}

export interface ListedCluster {
  name: string;
  state?: ClusterRecord;
  /** Why the state file could not be used. */
  error?: string;
}

/** Every cluster dir under root that has a state file, by name. */
export async function listClusters(root: string): Promise<ListedCluster[]> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await fs.readdir(root, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const dirs = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  const listed = await Promise.all(
    dirs.map(async (name): Promise<ListedCluster | undefined> => {
      try {
        const state = await readState(path.join(root, name, 'state.json'), { name });
        return state ? { name, state } : undefined;
      } catch (err) {
        return { name, error: err instanceof Error ? err.message : String(err) };
      }
    }),
  );
  return listed.filter((c): c is ListedCluster => c !== undefined);
}
