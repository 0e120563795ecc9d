import { Command } from 'commander';
import type { AppContext } from '../app/context.js';
import { upCommand } from './up.js';

export function buildProgram(ctx: AppContext, done: (code: number) => void): Command {
  const program = new Command('sshcluster')
    .description('Turn SSH-reachable machines into a running Dask cluster')
    .version('0.1.0')
    .showHelpAfterError('(add --help for usage)')
    .exitOverride()
    .configureOutput({ writeOut: (s) => ctx.stdout.write(s), writeErr: (s) => ctx.stderr.write(s) });
  program.addCommand(upCommand(ctx, done).exitOverride());
  return program;
}
