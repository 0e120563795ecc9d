// The outgoing side of one control connection. Lines go straight to the socket while it
// keeps up; once the socket asks to drain they wait here, and a connection whose queue
// passes its bounds is dropped with a final error line instead of growing memory.
import type net from 'node:net';
import { CONNECTION_ERROR_ID, encodeMessage, type ErrorBody } from './protocol.js';

/** How long a dropped or closed connection may take to read its last lines. */
const END_GRACE_MS = 30_000;

export class OutQueue {
  closed = false;
  onDrop?: () => void;
  private queue: (string | undefined)[] = [];
  private head = 0;
  private bytes = 0;

  constructor(
    private readonly socket: net.Socket,
    private readonly maxLines: number,
    private readonly maxBytes: number,
  ) {
    socket.on('drain', () => this.pump());
  }

  get length(): number {
    return this.queue.length - this.head;
  }

  push(line: string): void {
    if (this.closed) return;
    if (!this.length && !this.socket.writableNeedDrain) {
      this.socket.write(line);
      return;
    }
    this.queue.push(line);
    this.bytes += line.length;
    if (this.length > this.maxLines || this.bytes > this.maxBytes) {
      this.fail({
        message: `the controller dropped this connection: it fell more than ${this.maxLines} messages behind`,
        hint: 'attach again; a terminal that stops reading (paused, suspended) cannot keep up with the event stream',
        exitCode: 1,
      });
    }
  }

  /** Sends a connection-level error and closes, discarding what is still queued. */
  fail(error: ErrorBody): void {
    if (this.closed) return;
    this.reset();
    this.finish(encodeMessage({ id: CONNECTION_ERROR_ID, ok: false, error }));
  }

  /** Closes after sending what is queued (the server is shutting down). */
  end(graceMs = END_GRACE_MS): void {
    if (this.closed) return;
    const rest = this.queue.slice(this.head).join('');
    this.reset();
    this.finish(rest, graceMs);
  }

  private finish(last: string, graceMs = END_GRACE_MS): void {
    this.closed = true;
    this.onDrop?.();
    this.socket.end(last);
    setTimeout(() => this.socket.destroy(), graceMs).unref();
  }

  private reset(): void {
    this.queue = [];
    this.head = 0;
    this.bytes = 0;
  }

  private pump(): void {
    while (this.length) {
      const line = this.queue[this.head]!;
      this.queue[this.head++] = undefined;
      this.bytes -= line.length;
      if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue = this.queue.slice(this.head);
        this.head = 0;
      }
      if (!this.socket.write(line)) return;
    }
  }
}
