import { Command } from 'commander';
import type { AppContext } from '../app/context.js';
import { adaptCommand } from './adapt.js';
import { checkCommand } from './check.js';
import { envCommand } from './env.js';
import { attachCommand, downCommand, listCommand, logsCommand, scaleCommand, statusCommand } from './cluster-commands.js';
import { execCommand } from './exec.js';
import { upCommand } from './up.js';

export function buildProgram(ctx: AppContext, done: (code: number) => void): Command {
  const program = new Command('sshcluster')
    .description('Turn SSH-reachable machines into a running Dask cluster')
    .version('0.1.0')
    .showHelpAfterError('(add --help for usage)')
    .exitOverride()
    .configureOutput({ writeOut: (s) => ctx.stdout.write(s), writeErr: (s) => ctx.stderr.write(s) });
  program.addCommand(upCommand(ctx, done).exitOverride());
  for (const make of [adaptCommand, statusCommand, scaleCommand, logsCommand, attachCommand, downCommand, listCommand, envCommand]) {
    program.addCommand(make(ctx, done).exitOverride());
  }
  program.addCommand(checkCommand(ctx, done).exitOverride());
  program.addCommand(execCommand(ctx, done).exitOverride());
  return program;
}
