// What the benchmarks share: starting a child with its output kept (bounded) and a
// way to wait for a line in it, killing every child by PID on the way out, and /proc/PID/stat.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Every child we start, so an interrupted bench does not leave them running. */
export const children = new Set<ChildProcess>();
export function killChildren(): void {
  for (const c of children) {
    if (c.pid !== undefined && c.exitCode === null && c.signalCode === null) {
      try {
        process.kill(c.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
  }
}

export interface Proc {
  child: ChildProcess;
  t0: number;
  out: () => string;
  /** Resolves with the time (performance.now()) the first match arrived. */
  waitFor(re: RegExp, timeoutMs: number): Promise<{ m: RegExpExecArray; at: number } | 'timeout' | 'exited'>;
  /**
   * Resolves when `text` has appeared `n` times. Counted, not matched as `(?:text[^]*?){n}`:
   * while fewer have arrived, that regex backtracks exponentially in n (64 never returned).
   */
  waitForCount(text: string, n: number, timeoutMs: number): Promise<{ at: number } | 'timeout' | 'exited'>;
  closed: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

/** Spawns and stamps the time just before spawn; stdout+stderr are kept (bounded). */
export function start(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
  stdin: 'ignore' | 'pipe' = 'ignore',
): Proc {
  const t0 = performance.now();
  const child = spawn(cmd, args, { env, stdio: [stdin, 'pipe', 'pipe'] });
  children.add(child);
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += process.env.BENCH_DEBUG
      ? d.toString('utf8').replace(/^(?=.)/gm, `[+${((performance.now() - t0) / 1000).toFixed(2)}s] `)
      : d.toString('utf8');
    if (out.length > 1_000_000) out = out.slice(-500_000);
    for (const l of [...listeners]) l();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) => {
    child.on('error', (err) => {
      out += `\nspawn error: ${String(err)}\n`;
    });
    child.on('close', (code, signal) => {
      children.delete(child);
      resolve({ code, signal, at: performance.now() });
    });
  });
  let done = false;
  void closed.then(() => {
    done = true;
    for (const l of [...listeners]) l();
  });
  return {
    child,
    t0,
    out: () => out,
    closed,
    waitFor(re, timeoutMs) {
      return until(() => {
        const m = re.exec(out);
        return m ? { m, at: performance.now() } : undefined;
      }, timeoutMs);
    },
    waitForCount(text, n, timeoutMs) {
      return until(() => (out.split(text).length > n ? { at: performance.now() } : undefined), timeoutMs);
    },
  };

  /** Resolves with what `test` returns once it returns something, checked on each output chunk. */
  function until<T>(test: () => T | undefined, timeoutMs: number): Promise<T | 'timeout' | 'exited'> {
    return new Promise((resolve) => {
      const finish = (v: T | 'timeout' | 'exited') => {
        listeners.delete(check);
        clearTimeout(timer);
        resolve(v);
      };
      const check = () => {
        const v = test();
        if (v !== undefined) finish(v);
        else if (done) finish('exited');
      };
      const timer = setTimeout(() => finish('timeout'), timeoutMs);
      listeners.add(check);
      check();
    });
  }
}

export async function closedWithin(p: Proc, ms: number) {
  return Promise.race([p.closed, sleep(ms).then(() => undefined)]);
}

export async function killAndWait(p: Proc, sig: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (p.child.pid !== undefined && p.child.exitCode === null && p.child.signalCode === null) {
    try {
      process.kill(p.child.pid, sig);
    } catch {
      /* gone */
    }
  }
  await closedWithin(p, 10_000);
}

/** A bench run that must stop (a leak, no namespaces); reported, not thrown past main. */
export class BenchAbort extends Error {}

export const fmt = (ms: number | undefined) => (ms === undefined ? '-' : `${(ms / 1000).toFixed(2)}s`);
export const tail = (s: string, n = 25) =>
  s
    .trimEnd()
    .split('\n')
    .slice(-n)
    .map((l) => `    ${l}`)
    .join('\n');

/**
 * `--rounds N --timeout SECONDS` (or `--flag=value`), `-h`, and the bench's own `--NAME VALUE`
 * options named in `own` (returned as given); bad input prints usage and exits 2.
 */
export function parseBenchArgs(
  argv: string[],
  defaults: { rounds: number; timeoutS: number },
  usageText: string,
  own: string[] = [],
): { rounds: number; timeoutMs: number; own: Record<string, string> } {
  const usage = (code: number): never => {
    (code === 0 ? console.log : console.error)(usageText);
    process.exit(code);
  };
  let { rounds, timeoutS } = defaults;
  const given: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const [flag, inline] = a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    const value = () => inline ?? argv[++i] ?? usage(2);
    if (flag === '--rounds') rounds = Number(value());
    else if (flag === '--timeout') timeoutS = Number(value());
    else if (flag === '-h' || flag === '--help') usage(0);
    else if (own.includes(flag.replace(/^--/, ''))) given[flag.replace(/^--/, '')] = value();
    else {
      console.error(`bench: unknown argument ${a}`);
      usage(2);
    }
  }
  if (!Number.isInteger(rounds) || rounds < 1) {
    console.error('bench: --rounds expects a positive integer');
    usage(2);
  }
  if (!(timeoutS > 0)) {
    console.error('bench: --timeout expects a positive number of seconds');
    usage(2);
  }
  return { rounds, timeoutMs: timeoutS * 1000, own: given };
}

export const median = (xs: number[]): number | undefined => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length === 0 ? undefined : s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
export const min = (xs: number[]) => (xs.length ? Math.min(...xs) : undefined);

/**
 * The report's last lines on what did not count: each contender's timeouts and failures
 * (left out of the figures), rounds not completed, an abort. Whether the run was clean.
 */
export function shortfallLines(
  lines: string[],
  results: Record<string, { ok: boolean; timeout?: boolean }[]>,
  tools: readonly string[],
  rounds: number,
  aborted: string | undefined,
): boolean {
  let clean = true;
  for (const tool of tools) {
    const rs = results[tool] ?? [];
    const timeouts = rs.filter((r) => r.timeout).length;
    const failed = rs.filter((r) => !r.ok && !r.timeout).length;
    if (timeouts || failed) {
      clean = false;
      lines.push(
        `${tool}: ${timeouts} timeout(s), ${failed} failure(s) out of ${rs.length} run(s) (excluded from the figures)`,
      );
    }
  }
  const done = Math.min(...tools.map((t) => (results[t] ?? []).length));
  if (done < rounds) lines.push(`only ${done} of ${rounds} round(s) completed`);
  if (aborted) {
    clean = false;
    lines.push(`ABORTED: ${aborted}`);
  }
  return clean;
}

/**
 * Runs a bench's main and exits with its code. A BenchAbort (the bench could not measure:
 * a step failed) is said in one line, exit 1; any other error is printed with its stack.
 */
export function runMain(main: () => Promise<number>): void {
  main().then(
    (code) => process.exit(code),
    (err) => {
      console.error(err instanceof BenchAbort ? `bench: ${err.message}` : err);
      process.exit(1);
    },
  );
}

/**
 * The fields of /proc/<pid>/stat after the command name (which may hold spaces and
 * parentheses): [0] is the state, [1] the ppid, [11] and [12] utime and stime.
 */
export function procStat(pid: number | string): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}
