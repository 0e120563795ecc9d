import { Command } from 'commander';
import type { AppContext } from '../app/context.js';
import { UsageError } from '../errors.js';
import { clusterName } from './options.js';

export function envCommand(ctx: AppContext, done: (code: number) => void): Command {
  return new Command('env')
    .description(
      'what a client needs to connect: DASK_SCHEDULER_ADDRESS and, with TLS, the DASK_DISTRIBUTED__COMM__TLS__* variables; use as eval "$(sshcluster env)"',
    )
    .option('--name <name>', 'which cluster (default: the only one)', clusterName)
    .option('--json', 'the address and variables as JSON', false)
    .option('--python', 'a Python snippet building Client(..., security=Security(...))', false)
    .action(async (o: { name?: string; json: boolean; python: boolean }) => {
      if (o.json && o.python) throw new UsageError('--json and --python are alternatives: choose one');
      const { runEnv } = await import('../app/commands/env.js');
      done(await runEnv(ctx, o));
    });
}
