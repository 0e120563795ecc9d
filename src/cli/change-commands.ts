// plan, apply, drain, undrain, restart: change a running cluster without stopping it.
import { Command, InvalidArgumentError, Option } from 'commander';
import type { AppContext } from '../app/context.js';
import type { Unavailable } from '../app/commands/change.js';
import { clusterName, timeLimit } from './options.js';

type Done = (code: number) => void;
const changes = () => import('../app/commands/change.js');

const securityOption = () =>
  new Option('--security <mode>', 'as given to up, when it overrode the host file').choices(['tls', 'none']);
const timeoutOption = () =>
  new Option('--timeout <duration>', 'how long each batch (and the whole change) may take to register')
    .argParser(timeLimit)
    .default(120, '120s');
const forceOption = (what: string) =>
  new Option(
    '--force',
    `${what} even when the scheduler cannot move their results elsewhere (those results are lost; the count is said)`,
  ).default(false);
const unavailableOption = () =>
  new Option('--max-unavailable <n>', 'workers restarted at once: a count or a percentage like 25%')
    .argParser(unavailable)
    .default({ count: 1 }, '1');

function unavailable(value: string): Unavailable {
  const pct = /^(\d+)%$/.exec(value.trim());
  const n = Number(pct ? pct[1] : value);
  if (Number.isInteger(n) && n >= 1 && (pct ? n <= 100 : true)) return pct ? { percent: n } : { count: n };
  throw new InvalidArgumentError(
    `expected a count of workers (1, 2, …) or a percentage of them from 1% to 100%, got "${value}"`,
  );
}

export function planCommand(ctx: AppContext, done: Done): Command {
  return new Command('plan')
    .description('what apply would change in the running cluster (exit 0: nothing, 3: changes, 2: a bad file)')
    .argument('<hosts-file>', 'the changed host file')
    .option('--name <name>', 'which cluster (default: the host file name)', clusterName)
    .option('--json', 'the plan as JSON', false)
    .addOption(securityOption())
    .action(async (file: string, o: { name?: string; json: boolean; security?: 'tls' | 'none' }) =>
      done(await (await import('../app/commands/plan.js')).runPlan(ctx, { ...o, file })),
    );
}

export function applyCommand(ctx: AppContext, done: Done): Command {
  return new Command('apply')
    .description('change the running cluster to the host file: add hosts, drain removed ones, roll changed workers')
    .argument('<hosts-file>', 'the changed host file')
    .option('--name <name>', 'which cluster (default: the host file name)', clusterName)
    .option('--json', 'the result as JSON', false)
    .addOption(securityOption())
    .addOption(unavailableOption())
    .addOption(timeoutOption())
    .option(
      '--recreate',
      'for a change only a new cluster can take: down, then up --detach with the file (tasks and results in memory are lost)',
      false,
    )
    .addOption(forceOption('retire and restart workers'))
    .action(
      async (
        file: string,
        o: {
          name?: string;
          json: boolean;
          security?: 'tls' | 'none';
          maxUnavailable: Unavailable;
          timeout: number;
          recreate: boolean;
          force: boolean;
        },
      ) =>
        done(
          await (
            await changes()
          ).runApply(ctx, {
            ...o,
            file,
            timeoutMs: o.timeout * 1000,
            recreate: o.recreate ? { mainScript: process.argv[1]! } : undefined,
          }),
        ),
    );
}

function drainLike(ctx: AppContext, done: Done, undrain: boolean): Command {
  const cmd = new Command(undrain ? 'undrain' : 'drain')
    .description(
      undrain
        ? 'put drained hosts back into placement'
        : "retire hosts' workers (data moved) and keep them out of placement until undrain",
    )
    .argument('<hosts...>', 'worker host names')
    .option('--name <name>', 'which cluster (default: the only one running)', clusterName)
    .addOption(timeoutOption());
  if (!undrain) cmd.addOption(forceOption('stop the workers'));
  return cmd.action(async (hosts: string[], o: { name?: string; timeout: number; force?: boolean }) =>
    done(
      await (
        await changes()
      ).runDrain(ctx, { hosts, name: o.name, undrain, timeoutMs: o.timeout * 1000, force: o.force === true }),
    ),
  );
}

export const drainCommand = (ctx: AppContext, done: Done) => drainLike(ctx, done, false);
export const undrainCommand = (ctx: AppContext, done: Done) => drainLike(ctx, done, true);

export function restartCommand(ctx: AppContext, done: Done): Command {
  return new Command('restart')
    .description(
      'restart workers a batch at a time, each batch registered before the next (a leaking worker, a new package); each batch is printed as it completes',
    )
    .option('--rolling', 'one batch at a time (the only mode; accepted for clarity)', true)
    .option('--hosts <pattern>', 'only workers on these hosts (names, globs, ranges)')
    .option('--name <name>', 'which cluster (default: the only one running)', clusterName)
    .addOption(unavailableOption())
    .addOption(timeoutOption())
    .addOption(forceOption('restart workers'))
    .action(
      async (o: { name?: string; hosts?: string; maxUnavailable: Unavailable; timeout: number; force: boolean }) =>
        done(
          await (
            await changes()
          ).runRestart(ctx, {
            name: o.name,
            hosts: o.hosts,
            maxUnavailable: o.maxUnavailable,
            timeoutMs: o.timeout * 1000,
            force: o.force,
          }),
        ),
    );
}
