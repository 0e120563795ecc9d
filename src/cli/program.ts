import { Command } from 'commander';
import type { AppContext } from '../app/context.js';
import { safeText } from '../events/terminal-text.js';
import { adaptCommand } from './adapt-command.js';
import { checkCommand } from './check-command.js';
import { envCommand } from './env-command.js';
import {
  attachCommand,
  downCommand,
  listCommand,
  logsCommand,
  scaleCommand,
  statusCommand,
} from './cluster-commands.js';
import { execCommand } from './exec-command.js';
import { applyCommand, drainCommand, planCommand, restartCommand, undrainCommand } from './change-commands.js';
import { upCommand } from './up-command.js';

export function buildProgram(ctx: AppContext, done: (code: number) => void): Command {
  const program = new Command('sshcluster')
    .description('Turn SSH-reachable machines into a running Dask cluster')
    // Literal, not imported from version.ts: --help loads no module beyond the command table (module-loading.test.ts); version.test.ts keeps the two equal.
    .version('0.1.0');
  program.addCommand(upCommand(ctx, done));
  for (const make of [
    adaptCommand,
    statusCommand,
    scaleCommand,
    planCommand,
    applyCommand,
    drainCommand,
    undrainCommand,
    restartCommand,
    logsCommand,
    attachCommand,
    downCommand,
    listCommand,
    envCommand,
  ]) {
    program.addCommand(make(ctx, done));
  }
  program.addCommand(checkCommand(ctx, done));
  program.addCommand(execCommand(ctx, done));
  // addCommand does not pass settings down: every command gets them here.
  for (const cmd of [program, ...program.commands]) usageErrors(ctx, cmd);
  return program;
}

/**
 * Commander's own errors (unknown option, bad value) look like the tool's
 * ("sshcluster: …"), go to stderr, and end in a CommanderError that main.ts turns
 * into exit 2.
 */
function usageErrors(ctx: AppContext, cmd: Command): void {
  cmd
    .exitOverride()
    .showHelpAfterError('(add --help for usage)')
    .configureOutput({
      writeOut: (s) => ctx.stdout.write(s),
      writeErr: (s) => ctx.stderr.write(s),
      outputError: (s, write) => write(safeText(s.replace(/^error: /, 'sshcluster: '))),
    });
}
