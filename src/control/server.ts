// The controller's end of the control socket: dispatches requests to handlers and fans
// events out to subscribed connections. Every connection has a bounded outgoing queue,
// so an attached terminal that stops reading costs at most that much memory.
import fs from 'node:fs/promises';
import net from 'node:net';
import type { ClusterEvent } from '../events/types.js';
import { ExpectedError } from '../errors.js';
import {
  CONNECTION_ERROR_ID,
  LineDecoder,
  MAX_LINE_BYTES,
  ProtocolError,
  decodeRequest,
  encodeMessage,
  errorBody,
  SUBSCRIBE_METHOD,
  type Request,
  type ServerMessage,
} from './protocol.js';
import type { MethodTable, ParamsOf, ResultOf } from './methods.js';
import { OutQueue } from './out-queue.js';
import { listenOnce, removeStaleSocket } from './socket-file.js';

export interface ControlConnection {
  /** From now on this connection receives every broadcast event. */
  subscribe(): void;
  /** Called once when the connection closes, whoever closed it (an owner lease's end). */
  onClose(fn: () => void): void;
}

/** One handler per method of the table, given the params its parser returned. */
export type ControlHandlers<M extends MethodTable> = {
  [K in keyof M]: (params: ParamsOf<M[K]>, conn: ControlConnection) => Promise<ResultOf<M[K]>>;
};

interface Dispatch {
  methods: MethodTable;
  handlers: Record<string, (params: unknown, conn: ControlConnection) => Promise<unknown>>;
}

export interface ControlServerOptions {
  /** Queued lines after which a connection is dropped (default 10,000). */
  maxQueue?: number;
  /** Queued bytes after which a connection is dropped (default 16 MiB). */
  maxQueueBytes?: number;
  maxLineBytes?: number;
  /** Errors that are not ExpectedError (bugs in a handler), for the controller's log. */
  onUnexpectedError?: (err: unknown, method: string) => void;
}

export interface ControlServer {
  close(): Promise<void>;
  broadcast(e: ClusterEvent): void;
  /** Connections currently subscribed. */
  readonly subscribers: number;
}

/** How long close() lets clients read the last lines before it cuts them off. */
const CLOSE_GRACE_MS = 2_000;

export async function startControlServer<M extends MethodTable>(
  socketPath: string,
  methods: M,
  handlers: ControlHandlers<M>,
  opts: ControlServerOptions = {},
): Promise<ControlServer> {
  const table: Dispatch = { methods, handlers: handlers as Dispatch['handlers'] };
  await removeStaleSocket(socketPath);
  const maxLine = opts.maxLineBytes ?? MAX_LINE_BYTES;
  const conns = new Set<OutQueue>();
  const subscribed = new Set<OutQueue>();

  const server = net.createServer((socket) => {
    const out = new OutQueue(socket, opts.maxQueue ?? 10_000, opts.maxQueueBytes ?? 16 * 1024 * 1024);
    conns.add(out);
    const closers: (() => void)[] = [];
    const conn: ControlConnection = {
      subscribe: () => void (out.closed || subscribed.add(out)),
      onClose: (fn) => (out.closed ? queueMicrotask(fn) : closers.push(fn)),
    };
    const decoder = new LineDecoder(maxLine);
    const send = (msg: ServerMessage) => out.push(encodeOrError(msg, maxLine));
    socket.on('data', (chunk: Buffer) => {
      if (out.closed) return;
      let lines: string[];
      try {
        lines = decoder.push(chunk);
      } catch (err) {
        return out.fail(errorBody(err));
      }
      for (const line of lines) {
        let req: Request;
        try {
          req = decodeRequest(line);
        } catch (err) {
          return out.fail(errorBody(err));
        }
        void dispatch(req, conn, table, opts).then(send);
      }
    });
    socket.on('error', () => {}); // a client that vanished; 'close' follows
    socket.on('close', () => {
      out.closed = true;
      conns.delete(out);
      subscribed.delete(out);
      closers.splice(0).forEach((fn) => fn());
    });
    out.onDrop = () => subscribed.delete(out);
  });

  await listenOnce(server, socketPath);
  await fs.chmod(socketPath, 0o600);

  return {
    get subscribers() {
      return subscribed.size;
    },
    broadcast(e) {
      if (!subscribed.size) return;
      const line = encodeOrNull({ event: e }, maxLine);
      if (line) for (const out of subscribed) out.push(line);
    },
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const out of conns) out.end(CLOSE_GRACE_MS);
      });
    },
  };
}

async function dispatch(
  req: Request,
  conn: ControlConnection,
  table: Dispatch,
  opts: ControlServerOptions,
): Promise<ServerMessage> {
  const known = Object.hasOwn(table.methods, req.method) && Object.hasOwn(table.handlers, req.method);
  const handler = known ? table.handlers[req.method] : undefined;
  if (!handler && req.method === SUBSCRIBE_METHOD) {
    conn.subscribe();
    return { id: req.id, ok: true, result: null };
  }
  if (!handler) {
    const err = new ProtocolError(`the controller does not know the method "${req.method}"`);
    return { id: req.id, ok: false, error: errorBody(err) };
  }
  try {
    const params = table.methods[req.method]!.parse(req.params);
    return { id: req.id, ok: true, result: (await handler(params, conn)) ?? null };
  } catch (err) {
    if (!(err instanceof ExpectedError)) opts.onUnexpectedError?.(err, req.method);
    return { id: req.id, ok: false, error: errorBody(err) };
  }
}

function encodeOrError(msg: ServerMessage, maxLine: number): string {
  try {
    return encodeMessage(msg, maxLine);
  } catch (err) {
    const id = 'id' in msg ? msg.id : CONNECTION_ERROR_ID;
    return encodeMessage({ id, ok: false, error: errorBody(err) }, maxLine);
  }
}

function encodeOrNull(msg: ServerMessage, maxLine: number): string | null {
  try {
    return encodeMessage(msg, maxLine);
  } catch {
    return null; // an event too large to send is not worth a subscriber's connection
  }
}
