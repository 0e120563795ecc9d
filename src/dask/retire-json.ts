// The answer of a retire_workers call, as a RetireOutcome. Dask's route (2022.12 and
// 2024.12) answers {address: identity} for the workers it retired and leaves out those
// it could not (results no other running worker could take): kept = asked − answered.
// sshcluster's preload route says so itself: {"retired": {...}, "kept": {address:
// {"results": n}}}, n the results only that worker (or others retired with it) holds.
import type { RetireOutcome } from '../cluster/ports.js';
import { SchedulerResponseError, type RequestInfo } from './scheduler-errors.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export function parseRetire(req: RequestInfo, asked: readonly string[] | undefined, body: unknown): RetireOutcome {
  if (!isObj(body)) throw new SchedulerResponseError(req, 'expected an object keyed by worker address');
  if (isObj(body['retired']) && isObj(body['kept'])) {
    const kept = Object.entries(body['kept']).map(([address, v]) => {
      const n = isObj(v) ? v['results'] : undefined;
      return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? { address, results: n } : { address };
    });
    return { retired: Object.keys(body['retired']), kept };
  }
  const retired = Object.keys(body);
  const done = new Set(retired);
  return { retired, kept: (asked ?? []).filter((a) => !done.has(a)).map((address) => ({ address })) };
}
