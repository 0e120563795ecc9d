import { Command } from 'commander';
import type { AppContext } from '../app/context.js';
import { runUp } from '../app/up.js';
import { positiveInt, seconds } from './options.js';

export function upCommand(ctx: AppContext, done: (code: number) => void): Command {
  return new Command('up')
    .description('start a Dask scheduler and workers on the hosts of HOSTS.yaml (without it: a local cluster) and stay attached')
    .argument('[hosts]', 'host file (YAML); omit it for a local cluster on this machine, without SSH')
    .option('--fanout <n>', 'SSH connections opened at once', positiveInt, 32)
    .option('--require-all', 'fail (exit 1) if any host fails to start', false)
    .option('--no-tui', 'plain prefixed log lines (currently the only output mode)')
    .option('--json', 'write events as NDJSON instead of plain lines', false)
    .option('--python <path>', 'local cluster only: the Python interpreter that has distributed')
    .option('--ready-timeout <duration>', 'how long to wait for the scheduler and workers to register', seconds, 120)
    .action(async (file: string | undefined, o: { fanout: number; requireAll: boolean; json: boolean; python?: string; readyTimeout: number }) => {
      done(
        await runUp(ctx, {
          file,
          fanout: o.fanout,
          requireAll: o.requireAll,
          json: o.json,
          python: o.python,
          readyTimeoutMs: o.readyTimeout * 1000,
        }),
      );
    });
}
