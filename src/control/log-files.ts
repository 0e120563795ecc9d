// File names and reads of the per-process logs, shared by the LogStore and by commands
// that read the logs of a cluster whose controller is gone.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

/** The current log file of a process; rotated ones add .1, .2 … */
export function logFilePath(logsDir: string, name: string): string {
  return path.join(logsDir, `${fileBase(name)}.log`);
}

/** The last n lines of file, reading back through file.1 … file.keep as needed. */
export async function readTail(file: string, keep: number, n: number): Promise<string[]> {
  let lines: string[] = [];
  for (let i = 0; i <= keep && lines.length < n; i++) {
    const text = await fs.readFile(i ? `${file}.${i}` : file, 'utf8').catch(() => '');
    const got = text.split('\n');
    if (got[got.length - 1] === '') got.pop();
    lines = got.concat(lines);
  }
  return n > 0 ? lines.slice(-n) : [];
}

export async function renameIfExists(from: string, to: string): Promise<void> {
  await fs.rename(from, to).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
  });
}

/**
 * Process names like "10.0.0.3-0" or "scheduler" stay as they are; anything else is
 * %-escaped so a name can never leave the logs dir or hide as a dot file.
 */
export function fileBase(name: string): string {
  const escaped = [...Buffer.from(name, 'utf8')]
    .map((b, i) => {
      const c = String.fromCharCode(b);
      return /[A-Za-z0-9_-]/.test(c) || (c === '.' && i > 0) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
    })
    .join('');
  if (escaped.length <= 200) return escaped || '%';
  return `${escaped.slice(0, 180)}~${createHash('sha256').update(name).digest('hex').slice(0, 16)}`;
}

export function decodeName(base: string): string {
  try {
    return decodeURIComponent(base);
  } catch {
    return base;
  }
}
