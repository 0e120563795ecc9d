// Typed failures of the scheduler HTTP client. All are expected errors (a scheduler
// can be down or misconfigured), printed with message and hint, never a stack.
import { ExpectedError } from '../errors.js';

export interface RequestInfo {
  method: string;
  path: string;
}

export class SchedulerRequestError extends ExpectedError {
  readonly method: string;
  readonly path: string;
  constructor(req: RequestInfo, message: string, opts: { hint?: string; cause?: unknown } = {}) {
    super(`scheduler ${req.method} ${req.path}: ${message}`, opts);
    this.method = req.method;
    this.path = req.path;
  }
}

/** No answer within timeoutMs (connect included). */
export class SchedulerTimeoutError extends SchedulerRequestError {
  readonly timeoutMs: number;
  constructor(req: RequestInfo, timeoutMs: number) {
    super(req, `no response within ${timeoutMs} ms`, {
      hint: 'is the scheduler running and its dashboard port reachable?',
    });
    this.timeoutMs = timeoutMs;
  }
}

/** The connection could not be made or broke before a full response. */
export class SchedulerConnectionError extends SchedulerRequestError {
  constructor(req: RequestInfo, cause: unknown) {
    super(req, `connection failed: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
      hint: 'is the scheduler running and its dashboard port reachable?',
    });
  }
}

/** A response other than 200; `body` is its first 500 characters. */
export class SchedulerHttpError extends SchedulerRequestError {
  readonly status: number;
  readonly body: string;
  constructor(req: RequestInfo, status: number, body: string, hint?: string) {
    super(req, `HTTP ${status}${body ? `: ${body.slice(0, 200)}` : ''}`, { hint });
    this.status = status;
    this.body = body.slice(0, 500);
  }
}

/** 404 under /api/v1: the scheduler was started without the API route module. */
export class SchedulerApiDisabledError extends SchedulerHttpError {
  constructor(req: RequestInfo, body: string) {
    super(
      req,
      404,
      body,
      'the scheduler HTTP API was not enabled at launch: start it with ' +
        "DASK_DISTRIBUTED__SCHEDULER__HTTP__ROUTES including 'distributed.http.scheduler.api' (schedulerEnv())",
    );
  }
}

/** 200 but not the JSON shape expected. */
export class SchedulerResponseError extends SchedulerRequestError {
  constructor(req: RequestInfo, detail: string) {
    super(req, `unexpected response: ${detail}`);
  }
}
