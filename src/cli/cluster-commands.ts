// Commands that act on a running cluster: found by --name, or the only one running.
import { Command, Option } from 'commander';
import type { AppContext } from '../app/context.js';
import { clusterName, timeLimit, wholeNumber } from './options.js';

// Each command loads what it runs when it runs (`--help` loads none of it).
const commands = () => import('../app/commands/cluster-clients.js');

type Done = (code: number) => void;

export function listCommand(ctx: AppContext, done: Done): Command {
  return new Command('list')
    .description(
      'clusters on this machine, and whether their controller is running (stopped: only their logs are kept)',
    )
    .option('--json', 'JSON output', false)
    .action(async (o: { json: boolean }) => done(await (await commands()).runList(ctx, o)));
}

export function statusCommand(ctx: AppContext, done: Done): Command {
  return new Command('status')
    .description('scheduler address, dashboard, hosts and workers of a running cluster')
    .option('--name <name>', 'which cluster (default: the only one running)', clusterName)
    .option('--json', 'the status document as JSON (fields: see docs/reference.md)', false)
    .action(async (o: { name?: string; json: boolean }) => done(await (await commands()).runStatus(ctx, o)));
}

export function scaleCommand(ctx: AppContext, done: Done): Command {
  return new Command('scale')
    .description('start or retire workers until N are running')
    .argument('<n>', 'number of workers', wholeNumber)
    .option('--name <name>', 'which cluster (default: the only one running)', clusterName)
    .addOption(
      new Option('--timeout <duration>', 'how long to wait for the workers to be running')
        .argParser(timeLimit)
        .default(120, '120s'),
    )
    .option(
      '--force',
      'retire workers even when the scheduler cannot move their results elsewhere (those results are lost; the count is said)',
      false,
    )
    .action(async (n: number, o: { name?: string; timeout: number; force: boolean }) =>
      done(await (await commands()).runScale(ctx, { name: o.name, n, timeoutMs: o.timeout * 1000, force: o.force })),
    );
}

export function downCommand(ctx: AppContext, done: Done): Command {
  return new Command('down')
    .description(
      'stop a cluster gracefully and check that nothing of it is left on any host (works without its controller too)',
    )
    .option('--name <name>', 'which cluster (default: the only one)', clusterName)
    .option('--json', 'the result as JSON', false)
    .action(async (o: { name?: string; json: boolean }) =>
      done(await (await import('../app/commands/down.js')).runDown(ctx, o)),
    );
}

export function logsCommand(ctx: AppContext, done: Done): Command {
  return new Command('logs')
    .description('recorded logs of the scheduler and workers; -f follows them live')
    .argument('[target]', 'a process name (scheduler, <host>-<i>) or a host')
    .option('--name <name>', 'which cluster (default: the only one)', clusterName)
    .option('-f, --follow', 'keep printing new lines', false)
    .option('--tail <n>', 'lines per process from the recorded log', wholeNumber, 50)
    .option('--previous', 'the run before the current (or last) one of this cluster', false)
    .action(
      async (target: string | undefined, o: { name?: string; follow: boolean; tail: number; previous: boolean }) =>
        done(await (await commands()).runLogs(ctx, { ...o, target })),
    );
}

export function attachCommand(ctx: AppContext, done: Done): Command {
  return new Command('attach')
    .description(
      'the dashboard of a running (e.g. detached) cluster; off a terminal, its status, then its events and logs',
    )
    .option('--name <name>', 'which cluster (default: the only one running)', clusterName)
    .option('--no-tui', 'plain status and log lines instead of the dashboard')
    .action(async (o: { name?: string; tui: boolean }) => done(await (await commands()).runAttach(ctx, o)));
}
