// Lines every start of one of our processes adds to its log and that say nothing to the
// user: Dask's three lines per preload for sshcluster's own preloads (scheduler_wait,
// ssl_error_queue, scheduler_demand) and the demand preload's own "route at". They are
// kept out of the log view unless the process fails (app/controller/quiet-lines.ts).
// A user's own preloads keep their lines.
import { parseRecord } from './log-lines.js';

const OUR_PRELOADS = ['scheduler_wait', 'ssl_error_queue', 'scheduler_demand'];
const PRELOAD_STEP = /^(?:Creating preload|Import preload module|Run preload setup): (?:.*\/)?([\w.]+?)(?:\.py)?$/;

export function isSetupLine(line: string): boolean {
  const r = parseRecord(line);
  if (!r || (r.level !== 'INFO' && r.level !== 'DEBUG')) return false;
  if (r.logger === 'distributed.preloading') {
    const m = PRELOAD_STEP.exec(r.message);
    return m !== null && OUR_PRELOADS.includes(m[1]!);
  }
  return r.logger === 'distributed.sshcluster.demand' && r.message.startsWith('sshcluster demand route at ');
}
