// A command's end of the control socket: calls by id, error responses rethrown as the
// ExpectedError the controller raised, and an event subscription that lasts until the
// controller closes the connection.
import net from 'node:net';
import type { ClusterEvent } from '../events/types.js';
import { ExpectedError } from '../errors.js';
import type { MethodTable, ParamsOf, ResultOf } from './methods.js';
import {
  CONNECTION_ERROR_ID,
  LineDecoder,
  MAX_LINE_BYTES,
  ProtocolError,
  decodeServerMessage,
  encodeMessage,
  errorFromBody,
  SUBSCRIBE_METHOD,
  type ServerMessage,
} from './protocol.js';

export interface ConnectOptions {
  /** For connecting, and the default for each call. */
  timeoutMs: number;
  /** The cluster's name, for error messages. */
  cluster?: string;
  maxLineBytes?: number;
}

export interface CallOptions {
  /** Overrides the connection's timeout; 0 waits for as long as it takes (e.g. `down`). */
  timeoutMs?: number;
}

/** The subscribe method's params and result, when the table declares one. */
type SubscribeParams<M> = M extends { subscribe: infer S } ? ParamsOf<S> : unknown;
type SubscribeResult<M> = M extends { subscribe: infer S } ? ResultOf<S> : unknown;

export interface SubscribeOptions<M extends MethodTable = MethodTable> {
  /** Sent with the subscribe request, for a handler that takes options. */
  params?: SubscribeParams<M>;
  /** The subscribe request's result (e.g. a snapshot to show before the events). */
  onSubscribed?: (result: SubscribeResult<M>) => void;
}

/** Params may be left out where the method takes none. */
type CallArgs<T> =
  undefined extends ParamsOf<T>
    ? [params?: ParamsOf<T>, opts?: CallOptions]
    : [params: ParamsOf<T>, opts?: CallOptions];

export interface ControlClient<M extends MethodTable = MethodTable> {
  call<K extends keyof M & string>(method: K, ...args: CallArgs<M[K]>): Promise<ResultOf<M[K]>>;
  /** Resolves when the controller closes the connection; rejects if it dropped this one. */
  subscribe(onEvent: (e: ClusterEvent) => void, opts?: SubscribeOptions<M>): Promise<void>;
  close(): void;
}

interface Pending {
  resolve(v: unknown): void;
  reject(e: Error): void;
}

export async function connectControl<M extends MethodTable = MethodTable>(
  socketPath: string,
  opts: ConnectOptions,
): Promise<ControlClient<M>> {
  const label = opts.cluster === undefined ? 'this cluster' : `cluster ${opts.cluster}`;
  const socket = await openSocket(socketPath, opts.timeoutMs, label);
  const maxLine = opts.maxLineBytes ?? MAX_LINE_BYTES;
  const decoder = new LineDecoder(maxLine);
  const pending = new Map<number, Pending>();
  const listeners = new Set<(e: ClusterEvent) => void>();
  let nextId = 1;
  let failure: Error | undefined;
  let closed = false;

  const fail = (err: Error) => {
    failure ??= err;
    socket.destroy();
  };
  const onMessage = (msg: ServerMessage) => {
    if ('event' in msg) return listeners.forEach((l) => l(msg.event));
    if (msg.id === CONNECTION_ERROR_ID)
      return fail(msg.ok ? new ProtocolError('unexpected message') : errorFromBody(msg.error));
    const p = pending.get(msg.id);
    if (!p) return;
    pending.delete(msg.id);
    if (msg.ok) p.resolve(msg.result);
    else p.reject(errorFromBody(msg.error));
  };
  const closedPromise = new Promise<void>((resolve) => {
    socket.on('close', () => {
      closed = true;
      const err =
        failure ??
        new ExpectedError(`the controller of ${label} closed the connection before answering`, {
          hint: 'it may have stopped; `sshcluster status` shows whether it is still running',
        });
      for (const p of pending.values()) p.reject(err);
      pending.clear();
      resolve();
    });
  });
  socket.on('error', (err) => {
    failure ??= new ExpectedError(`control connection to ${label} failed: ${err.message}`, { cause: err });
  });
  socket.on('data', (chunk: Buffer) => {
    try {
      for (const line of decoder.push(chunk)) onMessage(decodeServerMessage(line));
    } catch (err) {
      fail(err instanceof Error ? err : new Error(String(err)));
    }
  });

  function call(method: string, params?: unknown, callOpts: CallOptions = {}): Promise<unknown> {
    if (closed)
      return Promise.reject(failure ?? new ExpectedError(`the connection to the controller of ${label} is closed`));
    const id = nextId++;
    const line = encodeMessage(params === undefined ? { id, method } : { id, method, params }, maxLine);
    const timeoutMs = callOpts.timeoutMs ?? opts.timeoutMs;
    return new Promise((resolve, reject) => {
      const timer =
        timeoutMs > 0
          ? setTimeout(() => {
              pending.delete(id);
              reject(
                new ExpectedError(`the controller of ${label} did not answer "${method}" within ${timeoutMs / 1000}s`, {
                  hint: 'it may be busy or hung; its log is controller.log in the cluster state dir',
                }),
              );
            }, timeoutMs)
          : undefined;
      const done = () => clearTimeout(timer);
      pending.set(id, {
        resolve: (v) => (done(), resolve(v)),
        reject: (e) => (done(), reject(e)),
      });
      socket.write(line);
    });
  }

  return {
    // The table's types are the contract; on the wire a call is a name, params and a result.
    call: call as ControlClient<M>['call'],
    async subscribe(onEvent, subOpts: SubscribeOptions<M> = {}) {
      // Events that overtake the reply wait for it: what it holds comes first.
      let early: ClusterEvent[] | undefined = [];
      const listener = (e: ClusterEvent) => (early ? early.push(e) : onEvent(e));
      listeners.add(listener);
      try {
        const result = await call(SUBSCRIBE_METHOD, subOpts.params);
        subOpts.onSubscribed?.(result as SubscribeResult<M>);
        const queued = early;
        early = undefined;
        queued.forEach(onEvent);
        await closedPromise;
      } finally {
        listeners.delete(listener);
      }
      if (failure && !(failure instanceof ClosedByUs)) throw failure;
    },
    close() {
      failure ??= new ClosedByUs('the control connection was closed');
      socket.destroy();
    },
  };
}

class ClosedByUs extends ExpectedError {}

/** Nothing listens on the socket: the controller is gone (or was never started). */
export class NoControllerError extends ExpectedError {}

function openSocket(socketPath: string, timeoutMs: number, label: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new ExpectedError(`the controller of ${label} did not accept a connection within ${timeoutMs / 1000}s`, {
          hint: 'it may be hung; `sshcluster down` can still clean up from the state file',
        }),
      );
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      socket.on('error', () => {}); // until the caller's own handler is attached
      resolve(socket);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(connectError(err, socketPath, label));
    });
  });
}

function connectError(err: NodeJS.ErrnoException, socketPath: string, label: string): ExpectedError {
  if (err.code === 'ENOENT' || err.code === 'ECONNREFUSED') {
    return new NoControllerError(`no controller is running for ${label}`, {
      cause: err,
      hint: '`sshcluster down` can still clean up what it started, from the state file; `sshcluster up` starts it again',
    });
  }
  return new ExpectedError(`cannot connect to the controller of ${label} at ${socketPath}: ${err.message}`, {
    cause: err,
  });
}
