import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';

/** Runs a command synchronously; throws with its stderr, so ip(8) errors are readable. */
export function run(cmd: string, args: string[]): string {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`${cmd} ${args.join(' ')}: ${(e.stderr ?? '').trim() || e.message}`);
  }
}

/** Zombies count as dead: our own children stay zombies until libuv reaps them. */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

export function parentPid(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

export function cmdlineOf(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      .split('\0')
      .filter((a) => a !== '');
  } catch {
    return [];
  }
}

/** pid and all its live descendants (loopback mode has no namespace to enumerate). */
export function descendantsOf(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    const ppid = Number.isInteger(pid) ? parentPid(pid) : undefined;
    if (ppid !== undefined) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  }
  const out: number[] = [];
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    if (!isAlive(pid)) continue;
    out.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return out;
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
/** Blocking sleep: teardown must also work inside a process 'exit' handler. */
export function sleepSync(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

/** SIGTERM, wait up to graceMs, then SIGKILL; returns error strings instead of throwing. */
export function killAll(pids: number[], graceMs = 2000): string[] {
  const errors: string[] = [];
  const signal = (pid: number, sig: NodeJS.Signals) => {
    try {
      process.kill(pid, sig);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ESRCH') errors.push(`kill ${sig} ${pid}: ${String(err)}`);
    }
  };
  pids.forEach((pid) => signal(pid, 'SIGTERM'));
  const deadline = Date.now() + graceMs;
  while (pids.some(isAlive) && Date.now() < deadline) sleepSync(25);
  pids.filter(isAlive).forEach((pid) => signal(pid, 'SIGKILL'));
  return errors;
}
