import { Command, Option } from 'commander';
import type { AppContext } from '../app/context.js';
import { UsageError } from '../errors.js';
import { positiveInt, timeLimit } from './options.js';

export function execCommand(ctx: AppContext, done: (code: number) => void): Command {
  return new Command('exec')
    .description('run a shell command on every host of HOSTS.yaml; identical output is folded')
    .usage('HOSTS.yaml [options] -- COMMAND')
    .argument('<hosts>', 'host file (YAML)')
    .argument(
      '[command...]',
      "the command, after --; run by the remote shell, words joined with spaces; $SSHCLUSTER_PYTHON is the cluster's interpreter there",
    )
    .option('--hosts <pattern>', 'only hosts matching: comma list of names, globs (node0*) or ranges (node[01-04])')
    .option('--fanout <n>', 'SSH connections opened at once', positiveInt, 32)
    .addOption(
      new Option('--timeout <duration>', 'per-host time limit for the command; its process group is then stopped')
        .argParser(timeLimit)
        .default(600, '10m'),
    )
    .option('--no-fold', 'print each line as it arrives, prefixed "host: ", instead of folding identical output')
    .option('--json', 'one JSON document: per host status, exit code and output', false)
    .action(
      async (
        file: string,
        command: string[],
        o: { hosts?: string; fanout: number; timeout: number; fold: boolean; json: boolean },
      ) => {
        if (command.length === 0) throw noCommand(file);
        // Loaded on use: exec is often run for `true`-sized commands, start-up time counts.
        const { runExec } = await import('../app/commands/exec.js');
        done(
          await runExec(ctx, {
            file,
            command,
            hosts: o.hosts,
            fanout: o.fanout,
            timeoutMs: o.timeout * 1000,
            fold: o.fold,
            json: o.json,
          }),
        );
      },
    );
}

/**
 * No command: commander's "missing required argument 'command'" was all that `exec --
 * hostname` said, its word taken for the host file (exec runs on a file's hosts, not on a
 * running cluster's).
 */
function noCommand(file: string): UsageError {
  const yaml = /\.ya?ml$/i.test(file);
  return new UsageError(
    yaml ? `exec: no command after ${file}` : `exec: no host file: "${file}" was taken for it, and no command follows`,
    {
      hint: yaml
        ? `sshcluster exec ${file} -- COMMAND`
        : `sshcluster exec HOSTS.yaml -- ${file}: exec runs on the hosts of a file, the file first`,
    },
  );
}
