// A cluster's logs are kept per run: logs/<run id>/<process>.log. A run is one cluster
// from a fresh `up` to its teardown (a re-adopting `up` goes on in the same run), so
// `logs` shows this cluster's lines, start-up included, and never a previous cluster's.
// The last few runs are kept for `logs --previous`; older ones are removed.
import { randomBytes } from 'node:crypto';
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';

/** Runs kept in the logs dir: the current one and the ones before it. */
export const KEEP_RUNS = 5;

const RUN_ID = /^\d{8}T\d{6}Z-[0-9a-f]{6}$/;

/** Sorts by start time (UTC, to the second), then a random part for runs of the same second. */
export function newRunId(now: Date): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `${stamp}-${randomBytes(3).toString('hex')}`;
}

export function runDir(logsDir: string, runId: string): string {
  if (!RUN_ID.test(runId)) throw new Error(`not a run id: ${JSON.stringify(runId)}`);
  return path.join(logsDir, runId);
}

/** Run ids in the logs dir, oldest first. */
export function listRuns(logsDir: string): string[] {
  let entries: fsSync.Dirent[] = [];
  try {
    entries = fsSync.readdirSync(logsDir, { withFileTypes: true });
  } catch {
    return []; // no logs dir yet: no runs
  }
  return entries
    .filter((e) => e.isDirectory() && RUN_ID.test(e.name))
    .map((e) => e.name)
    .sort();
}

/**
 * The run `logs` reads: the cluster's current one (from its state file) or, without
 * one, the latest; with `previous`, the one before that. undefined when there is none.
 */
export function pickRun(runs: readonly string[], current: string | undefined, previous: boolean): string | undefined {
  const latest = runs[runs.length - 1];
  if (!previous) return current === undefined ? latest : runs.includes(current) ? current : undefined;
  const from = current ?? latest;
  return from === undefined ? undefined : runs.filter((r) => r < from).pop();
}

/**
 * Creates the run's dir (0700) and removes all but the newest `keep` runs besides it: a
 * run that ends empty (endRun) then takes none of them with it. A run that ends with
 * lines leaves `keep` in all.
 */
export async function startRun(logsDir: string, runId: string, keep = KEEP_RUNS): Promise<string> {
  const dir = runDir(logsDir, runId);
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  await fs.chmod(dir, 0o700);
  await pruneRuns(logsDir, runId, keep);
  return dir;
}

/**
 * The run's end: one that recorded nothing goes (dropRunIfEmpty); one with lines leaves
 * the newest `keep` runs, itself included. true when the run went.
 */
export async function endRun(logsDir: string, runId: string, keep = KEEP_RUNS): Promise<boolean> {
  if (await dropRunIfEmpty(logsDir, runId)) return true;
  await pruneRuns(logsDir, runId, keep - 1);
  return false;
}

/** Removes all but the newest `others` runs besides `runId`. */
async function pruneRuns(logsDir: string, runId: string, others: number): Promise<void> {
  const old = listRuns(logsDir).filter((r) => r !== runId);
  const drop = old.slice(0, Math.max(0, old.length - others));
  await Promise.all(drop.map((r) => fs.rm(path.join(logsDir, r), { recursive: true, force: true })));
}

/**
 * Removes the run's dir when it recorded nothing (no file, or only empty ones): an `up`
 * that failed before any process printed a line. Left behind, it would be the "latest
 * run" `logs` reads ("recorded: none") and push a real run out of the last KEEP_RUNS.
 * true when it was removed.
 */
async function dropRunIfEmpty(logsDir: string, runId: string): Promise<boolean> {
  const dir = runDir(logsDir, runId);
  let files: string[];
  try {
    files = await fs.readdir(dir);
  } catch {
    return false; // never made
  }
  const sizes = await Promise.all(
    files.map((f) => fs.lstat(path.join(dir, f)).then((st) => (st.isFile() ? st.size : 1))),
  );
  if (sizes.some((s) => s > 0)) return false;
  await fs.rm(dir, { recursive: true, force: true });
  return true;
}
