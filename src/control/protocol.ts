// The control socket speaks JSON lines. A client sends requests; the server answers
// each by id (in any order) and, on a subscribed connection, pushes events between the
// answers. A response with id 0 is about the connection itself (a protocol error, a
// subscriber that fell behind): the server closes the connection after sending it, and
// clients number their requests from 1.
import type { ClusterEvent } from '../events/types.js';
import { ExpectedError } from '../errors.js';

export const MAX_LINE_BYTES = 1024 * 1024;
export const CONNECTION_ERROR_ID = 0;
/**
 * What the client sends to subscribe. The server answers it itself (result null) unless
 * the controller registers a handler of that name, which must call conn.subscribe().
 */
export const SUBSCRIBE_METHOD = 'subscribe';

export interface Request {
  id: number;
  method: string;
  params?: unknown;
}

export interface ErrorBody {
  message: string;
  hint?: string;
  exitCode: number;
}

export type Response = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: ErrorBody };

export interface EventMessage {
  event: ClusterEvent;
}

export type ServerMessage = Response | EventMessage;

/** A peer that does not speak the protocol, or a line over the size limit. */
export class ProtocolError extends ExpectedError {
  constructor(message: string) {
    super(`control protocol: ${message}`, {
      hint: 'the controller and this command may come from different sshcluster versions',
    });
  }
}

/** One line, newline included; throws ProtocolError past the size limit. */
export function encodeMessage(msg: Request | ServerMessage, maxBytes = MAX_LINE_BYTES): string {
  const line = JSON.stringify(msg) + '\n';
  // UTF-8 takes at most 3 bytes per UTF-16 unit, so most lines skip the exact count.
  if (line.length * 3 > maxBytes && Buffer.byteLength(line) > maxBytes) {
    throw new ProtocolError(`message of ${Buffer.byteLength(line)} bytes exceeds the ${maxBytes}-byte line limit`);
  }
  return line;
}

export function errorBody(err: unknown): ErrorBody {
  if (err instanceof ExpectedError) {
    return err.hint === undefined
      ? { message: err.message, exitCode: err.exitCode }
      : { message: err.message, hint: err.hint, exitCode: err.exitCode };
  }
  return { message: err instanceof Error ? err.message : String(err), exitCode: 1 };
}

export function errorFromBody(body: ErrorBody): ExpectedError {
  return new ExpectedError(body.message, { hint: body.hint, exitCode: body.exitCode });
}

export function decodeRequest(line: string): Request {
  const msg = parseObject(line);
  if (!isId(msg.id) || msg.id === CONNECTION_ERROR_ID)
    throw new ProtocolError('request without a positive integer "id"');
  if (typeof msg.method !== 'string' || !msg.method) throw new ProtocolError('request without a "method"');
  return { id: msg.id, method: msg.method, params: msg.params };
}

export function decodeServerMessage(line: string): ServerMessage {
  const msg = parseObject(line);
  if ('event' in msg) {
    const e = msg.event as { kind?: unknown } | null;
    if (typeof e !== 'object' || e === null || typeof e.kind !== 'string')
      throw new ProtocolError('event without a "kind"');
    return { event: msg.event as ClusterEvent };
  }
  if (!isId(msg.id)) throw new ProtocolError('response without an integer "id"');
  if (msg.ok === true) return { id: msg.id, ok: true, result: msg.result };
  const err = msg.error as Partial<ErrorBody> | undefined;
  if (msg.ok !== false || typeof err?.message !== 'string') throw new ProtocolError('malformed response');
  const exitCode = typeof err.exitCode === 'number' ? err.exitCode : 1;
  const body: ErrorBody = { message: err.message, exitCode };
  if (typeof err.hint === 'string') body.hint = err.hint;
  return { id: msg.id, ok: false, error: body };
}

function parseObject(line: string): Record<string, unknown> {
  let msg: unknown;
  try {
    msg = JSON.parse(line);
  } catch {
    throw new ProtocolError('a line is not valid JSON');
  }
  if (typeof msg !== 'object' || msg === null || Array.isArray(msg))
    throw new ProtocolError('a line is not a JSON object');
  return msg as Record<string, unknown>;
}

function isId(x: unknown): x is number {
  return typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;
}

/** Splits a byte stream into lines without ever holding more than maxBytes of one line. */
export class LineDecoder {
  private parts: Buffer[] = [];
  private size = 0;
  constructor(private readonly maxBytes = MAX_LINE_BYTES) {}

  push(chunk: Buffer): string[] {
    const lines: string[] = [];
    let start = 0;
    let nl: number;
    while ((nl = chunk.indexOf(0x0a, start)) >= 0) {
      const piece = chunk.subarray(start, nl);
      this.check(this.size + piece.length);
      const whole = this.parts.length ? Buffer.concat([...this.parts, piece]) : piece;
      this.parts = [];
      this.size = 0;
      const line = whole.toString('utf8');
      if (line.trim()) lines.push(line);
      start = nl + 1;
    }
    const rest = chunk.subarray(start);
    if (rest.length) {
      this.check(this.size + rest.length);
      this.parts.push(rest);
      this.size += rest.length;
    }
    return lines;
  }

  private check(size: number): void {
    if (size > this.maxBytes) throw new ProtocolError(`a line exceeds the ${this.maxBytes}-byte limit`);
  }
}
