// The one top-level catch: expected errors are printed without a stack, anything else
// with one; sets the exit code (0 ok, 1 runtime failure, 2 usage or config).
import { CommanderError } from 'commander';
import { buildProgram } from './cli/program.js';
import { ExpectedError } from './errors.js';
import { safeText } from './events/terminal-text.js';
import { processContext } from './terminal.js';

const ctx = processContext();
// Not a top-level await: the build makes this file a CommonJS script, which V8 can
// cache compiled (bin/sshcluster).
void main();

async function main(): Promise<void> {
  let code = 0;
  // The command's own waits use unref'd timers (a pending wake-up must not keep a
  // finished controller alive), so once a local cluster's processes have all exited
  // nothing else would hold the event loop, and Node would end the process with code 0
  // in the middle of a wait: `up` would say nothing and leave its state file. Held until
  // the command returns.
  const running = setInterval(() => undefined, 2 ** 31 - 1);
  try {
    await buildProgram(ctx, (c) => (code = c)).parseAsync(process.argv);
  } catch (err) {
    code = report(err);
  } finally {
    clearInterval(running);
  }
  process.exitCode = code;
  // Connections and timers of a finished command must not keep the process alive.
  setTimeout(() => process.exit(code), 200).unref();
}

function report(err: unknown): number {
  if (err instanceof CommanderError) {
    // No command at all is help shown as an error (commander's exit code 1): bad usage, 2.
    if (err.code === 'commander.help') return err.exitCode === 0 ? 0 : 2;
    return err.code === 'commander.helpDisplayed' || err.code === 'commander.version' ? 0 : 2;
  }
  if (err instanceof ExpectedError) {
    // Messages can quote what a host said (stderr lines, remote errors).
    ctx.stderr.write(safeText(`sshcluster: ${err.message}\n`));
    if (err.hint) ctx.stderr.write(safeText(`  hint: ${err.hint}\n`));
    return err.exitCode;
  }
  ctx.stderr.write(
    `sshcluster: unexpected error (a bug; please report it):\n${err instanceof Error ? err.stack : String(err)}\n`,
  );
  return 1;
}
