import { Command, Option } from 'commander';
import type { AppContext } from '../app/context.js';
import { positiveInt, timeLimit } from './options.js';

export function checkCommand(ctx: AppContext, done: (code: number) => void): Command {
  return new Command('check')
    .description(
      'pre-flight: per host reachability, auth, host key, python, dask versions, cores, memory, GPUs, ports, clocks',
    )
    .argument('<hosts>', 'host file (YAML)')
    .option('--fanout <n>', 'SSH connections opened at once', positiveInt, 32)
    .addOption(
      new Option('--timeout <duration>', 'per-host time limit for the probe').argParser(timeLimit).default(30, '30s'),
    )
    .option('--json', 'one JSON document: rows and a summary', false)
    .action(async (file: string, o: { fanout: number; timeout: number; json: boolean }) => {
      const { runCheck } = await import('../app/commands/check.js');
      done(await runCheck(ctx, { file, fanout: o.fanout, json: o.json, timeoutMs: o.timeout * 1000 }));
    });
}
