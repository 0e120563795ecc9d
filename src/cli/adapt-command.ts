import { Command, InvalidArgumentError } from 'commander';
import type { AdaptParams } from '../app/controller/control-api.js';
import type { AppContext } from '../app/context.js';
import { MIN_ADAPTIVE_INTERVAL_MS as MIN_INTERVAL_MS } from '../config/defaults.js';
import { parseBytes } from '../config/durations.js';
import { UsageError } from '../errors.js';
import { clusterName, positiveInt, seconds, wholeNumber } from './options.js';

/** Refused early (exit 2) below the floor: a near-zero interval makes the loop spin. */
function interval(value: string): number {
  const s = seconds(value);
  if (s * 1000 < MIN_INTERVAL_MS)
    throw new InvalidArgumentError(`expected at least ${MIN_INTERVAL_MS}ms (Dask's default is 1s), got "${value}"`);
  return s;
}

function bytes(value: string): number {
  try {
    return parseBytes(value);
  } catch {
    throw new InvalidArgumentError(`expected a size like "100 GiB" or 4e9, got "${value}"`);
  }
}

interface Flags {
  name?: string;
  min?: number;
  max?: number;
  interval?: number;
  waitCount?: number;
  targetDuration?: number;
  minimumCores?: number;
  maximumCores?: number;
  minimumMemory?: number;
  maximumMemory?: number;
  off: boolean;
  dryRun: boolean;
  json: boolean;
}

/** The flags that set adaptive's bounds and pace, as the user writes them. */
const SETTINGS: readonly [keyof Flags, string][] = [
  ['min', '--min'],
  ['max', '--max'],
  ['interval', '--interval'],
  ['waitCount', '--wait-count'],
  ['targetDuration', '--target-duration'],
  ['minimumCores', '--minimum-cores'],
  ['maximumCores', '--maximum-cores'],
  ['minimumMemory', '--minimum-memory'],
  ['maximumMemory', '--maximum-memory'],
];

/**
 * --off with settings or --dry-run would drop them (or, with --dry-run, turn adaptive off
 * for real): refused before the controller is asked anything.
 */
function refuseOffWith(o: Flags): void {
  if (!o.off) return;
  const given = SETTINGS.filter(([k]) => o[k] !== undefined).map(([, flag]) => flag);
  if (given.length) {
    throw new UsageError(
      `adapt: --off turns adaptive scaling off, so it takes none of the flags that set how it scales (given: ${given.join(', ')})`,
      {
        hint: 'give one or the other: leave out --off to change these settings and keep adaptive on, or leave them out to turn it off; to hold a fixed size, use `sshcluster scale N`',
      },
    );
  }
  if (o.dryRun) {
    throw new UsageError(
      'adapt: --dry-run shows what one adaptive step would do; with --off there is no step to show',
      {
        hint: '`sshcluster adapt --off` turns adaptive off (the worker count stays where it is); `sshcluster status` shows its state now',
      },
    );
  }
}

export function adaptCommand(ctx: AppContext, done: (code: number) => void): Command {
  return new Command('adapt')
    .description("make a running cluster adaptive: workers follow the scheduler's load within bounds (Dask's Adaptive)")
    .option('--name <name>', 'which cluster (default: the only one running)', clusterName)
    .option('--min <n>', 'minimum workers (default 0)', wholeNumber)
    .option('--max <n>', "maximum workers (default: no bound but the hosts' max_workers)", wholeNumber)
    .option(
      '--interval <duration>',
      `time between adaptive steps (default 1s, at least ${MIN_INTERVAL_MS}ms)`,
      interval,
    )
    .option(
      '--wait-count <n>',
      'consecutive scale-down recommendations before a worker is retired (default 3)',
      positiveInt,
    )
    .option(
      '--target-duration <duration>',
      'how long the scheduler aims to take for the queued work (default 5s; set at scheduler start)',
      seconds,
    )
    .option('--minimum-cores <n>', 'at least this many threads in all', wholeNumber)
    .option('--maximum-cores <n>', 'at most this many threads in all', wholeNumber)
    .option('--minimum-memory <size>', 'at least this much worker memory in all', bytes)
    .option('--maximum-memory <size>', 'at most this much worker memory in all', bytes)
    .option('--off', 'back to a fixed size (the current one); takes none of the flags above', false)
    .option('--dry-run', 'print what one step would do now, and do nothing', false)
    .option('--json', 'JSON output', false)
    .action(async (o: Flags) => {
      refuseOffWith(o);
      const ms = (s: number | undefined) => (s === undefined ? undefined : s * 1000);
      const spec = Object.fromEntries(
        Object.entries({
          minimum: o.min,
          maximum: o.max,
          intervalMs: ms(o.interval),
          waitCount: o.waitCount,
          targetDurationMs: ms(o.targetDuration),
          minimumCores: o.minimumCores,
          maximumCores: o.maximumCores,
          minimumMemory: o.minimumMemory,
          maximumMemory: o.maximumMemory,
        }).filter(([, v]) => v !== undefined),
      );
      const params: AdaptParams = o.off ? { off: true } : { dryRun: o.dryRun, spec };
      const { runAdapt } = await import('../app/commands/adapt.js');
      done(await runAdapt(ctx, { name: o.name, params, json: o.json }));
    });
}
