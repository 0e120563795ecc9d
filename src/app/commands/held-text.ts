// What a command says of workers the scheduler would not retire (results with nowhere
// to go): kept running, an exit 1 with what frees them; or stopped with --force, a
// warning with how many results went.
import { HELD_RETRY_MS, totalResults, type KeptWorker } from '../../cluster/retire-hold.js';
import { ExpectedError } from '../../errors.js';

/** "warning: lab: b-0 stopped as forced: 20 result(s) only it held lost". */
export function droppedLine(name: string, dropped: KeptWorker[]): string {
  return `warning: ${name}: ${dropped.map((w) => w.name).join(', ')} stopped as forced: ${totalResults(dropped)} only ${dropped.length > 1 ? 'they' : 'it'} held lost`;
}

/** Workers a change left running because the scheduler could not move their results: exit 1, with what frees them. */
export function heldError(name: string, held: KeptWorker[], hosts: string[], command: string): ExpectedError {
  const they = held.length > 1;
  return new ExpectedError(
    `${name}: ${held.map((w) => w.name).join(', ')} ${they ? 'keep' : 'keeps'} running: the scheduler could not move ${totalResults(held)} only ${they ? 'they hold' : 'it holds'} (no other running worker to take them)`,
    {
      hint: `${hosts.length ? `${hosts.join(', ')} ${hosts.length > 1 ? 'stay' : 'stays'} draining; ` : ''}retired once room appears (a worker elsewhere: scale, undrain or apply) or the results are released, tried again every ${HELD_RETRY_MS / 1000}s; ${command} --force stops ${they ? 'them' : 'it'} now and loses them`,
    },
  );
}
