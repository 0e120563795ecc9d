import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { NoControllerError, connectControl } from '../../../src/control/client.js';
import { method } from '../../../src/control/methods.js';
import {
  type ControlConnection,
  type ControlServer,
  type ControlServerOptions,
  startControlServer,
} from '../../../src/control/server.js';
import { ExpectedError } from '../../../src/errors.js';
import type { ClusterEvent } from '../../../src/events/types.js';

let tmp: string;
let sock: string;
const servers: ControlServer[] = [];
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sshc-ctl-'));
  sock = path.join(tmp, 'control.sock');
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  fs.rmSync(tmp, { recursive: true, force: true });
});

// `any`: these handlers take whatever the test sends.
type AnyHandlers = Record<string, (params: any, conn: ControlConnection) => Promise<unknown>>;

/** A server whose table passes every method's params through as they came. */
async function start(handlers: AnyHandlers, opts?: ControlServerOptions) {
  const table = Object.fromEntries(Object.keys(handlers).map((k) => [k, method<unknown, unknown>((p) => p)]));
  const s = await startControlServer(sock, table, handlers, opts);
  servers.push(s);
  return s;
}

const notice = (i: number): ClusterEvent => ({ kind: 'notice', level: 'info', message: `n${i}` });

async function rejection(p: Promise<unknown>): Promise<ExpectedError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ExpectedError);
  return err as ExpectedError;
}

describe('control server and client', () => {
  it('answers calls, in any order, and maps errors with their hint and exit code', async () => {
    const onUnexpectedError = vi.fn();
    await start(
      {
        echo: async (p) => p,
        slow: async () => new Promise((r) => setTimeout(() => r('slow'), 50)),
        usage: async () => {
          throw new ExpectedError('bad worker count', { hint: 'give N >= 0', exitCode: 2 });
        },
        bug: async () => {
          throw new TypeError('x is undefined');
        },
      },
      { onUnexpectedError },
    );
    const c = await connectControl(sock, { timeoutMs: 2000, cluster: 'lab' });
    const slow = c.call('slow');
    expect(await c.call('echo', { a: [1, 'é'] })).toEqual({ a: [1, 'é'] });
    expect(await c.call('echo')).toBeNull();
    expect(await slow).toBe('slow');
    const e = await rejection(c.call('usage'));
    expect([e.message, e.hint, e.exitCode]).toEqual(['bad worker count', 'give N >= 0', 2]);
    const b = await rejection(c.call('bug'));
    expect([b.message, b.hint, b.exitCode]).toEqual(['x is undefined', undefined, 1]);
    expect(onUnexpectedError).toHaveBeenCalledWith(expect.any(TypeError), 'bug');
    expect((await rejection(c.call('nope'))).message).toMatch(/does not know the method "nope"/);
    expect((await rejection(c.call('constructor'))).message).toMatch(/does not know the method/);
    c.close();
  });

  it("runs the table's parser on the params before the handler, and answers its error", async () => {
    const handler = vi.fn(async ({ n }: { n: number }) => n * 2);
    const table = {
      double: method<{ n: number }, number>((raw) => {
        const n = (raw as { n?: unknown } | undefined)?.n;
        if (typeof n !== 'number')
          throw new ExpectedError(`double: expected a number, got ${JSON.stringify(n)}`, { exitCode: 2 });
        return { n };
      }),
    };
    servers.push(await startControlServer(sock, table, { double: handler }));
    const c = await connectControl<typeof table>(sock, { timeoutMs: 2000 });
    expect(await c.call('double', { n: 21 })).toBe(42);
    const e = await rejection(c.call('double', { n: 'x' } as never));
    expect([e.message, e.exitCode]).toEqual(['double: expected a number, got "x"', 2]);
    expect(handler).toHaveBeenCalledTimes(1);
    c.close();
  });

  it('makes the socket 0600 and removes it on close', async () => {
    const s = await start({});
    expect(fs.statSync(sock).mode & 0o777).toBe(0o600);
    await s.close();
    expect(fs.existsSync(sock)).toBe(false);
  });

  it('pushes broadcast events to subscribers in order until the server closes', async () => {
    const s = await start({});
    s.broadcast(notice(-1)); // nobody subscribed yet
    const c = await connectControl(sock, { timeoutMs: 2000 });
    const got: string[] = [];
    const done = c.subscribe((e) => got.push(e.kind === 'notice' ? e.message : e.kind), {
      onSubscribed: () => {
        for (let i = 0; i < 1000; i++) s.broadcast(notice(i));
      },
    });
    await vi.waitFor(() => expect(got).toHaveLength(1000));
    expect(got).toEqual(Array.from({ length: 1000 }, (_, i) => `n${i}`));
    expect(s.subscribers).toBe(1);
    await s.close();
    await done;
  });

  it('lets a subscribe handler return a snapshot', async () => {
    const s = await start({
      subscribe: async (_p, conn) => {
        conn.subscribe();
        return { workers: 3 };
      },
    });
    const c = await connectControl(sock, { timeoutMs: 2000 });
    const snapshot = new Promise((resolve) => void c.subscribe(() => {}, { onSubscribed: resolve }).catch(() => {}));
    expect(await snapshot).toEqual({ workers: 3 });
    expect(s.subscribers).toBe(1);
    c.close();
    await vi.waitFor(() => expect(s.subscribers).toBe(0));
  });

  it('hands events that overtake the snapshot to the subscriber only after it', async () => {
    let s: Awaited<ReturnType<typeof start>> | undefined;
    s = await start({
      subscribe: async (_p, conn) => {
        conn.subscribe();
        s!.broadcast(notice(0)); // on the wire before the reply
        await new Promise((r) => setTimeout(r, 20));
        return { workers: 3 };
      },
    });
    const c = await connectControl(sock, { timeoutMs: 2000 });
    const seen: string[] = [];
    void c
      .subscribe((e) => seen.push(e.kind === 'notice' ? e.message : e.kind), {
        onSubscribed: () => seen.push('snapshot'),
      })
      .catch(() => {});
    await vi.waitFor(() => expect(seen).toEqual(['snapshot', 'n0']));
    c.close();
  });

  it('drops a subscriber that stops reading, with a final error line, without queueing everything', async () => {
    const s = await start({}, { maxQueue: 100 });
    const raw = net.connect(sock);
    await new Promise((r) => raw.once('connect', r));
    raw.write('{"id":1,"method":"subscribe"}\n');
    await vi.waitFor(() => expect(s.subscribers).toBe(1));
    raw.pause();
    const pad = 'x'.repeat(200);
    for (let i = 0; i < 50_000 && s.subscribers; i++)
      s.broadcast({ kind: 'notice', level: 'info', message: `${i} ${pad}` });
    expect(s.subscribers).toBe(0);
    let text = '';
    raw.setEncoding('utf8').on('data', (d: string) => (text += d));
    raw.resume();
    await new Promise((r) => raw.once('close', r));
    const lines = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toEqual({ id: 1, ok: true, result: null });
    const events = lines.slice(1, -1).map((l) => Number(l.event.message.split(' ')[0]));
    expect(events).toEqual(events.map((_, i) => i)); // in order, none skipped before the drop
    expect(events.length).toBeLessThan(50_000);
    expect(lines.at(-1)).toMatchObject({
      id: 0,
      ok: false,
      error: { message: expect.stringMatching(/fell more than 100 messages behind/) },
    });
  });

  it('rejects the subscription of a client the controller dropped', async () => {
    const fake = net.createServer((conn) =>
      conn.once('data', (d) => {
        const { id } = JSON.parse(String(d));
        conn.write(`{"id":${id},"ok":true,"result":null}\n{"event":{"kind":"notice","level":"info","message":"a"}}\n`);
        conn.end('{"id":0,"ok":false,"error":{"message":"dropped","hint":"attach again","exitCode":1}}\n');
      }),
    );
    await new Promise<void>((r) => fake.listen(sock, r));
    try {
      const c = await connectControl(sock, { timeoutMs: 2000 });
      const got: ClusterEvent[] = [];
      const e = await rejection(c.subscribe((ev) => got.push(ev)));
      expect([e.message, e.hint]).toEqual(['dropped', 'attach again']);
      expect(got).toEqual([{ kind: 'notice', level: 'info', message: 'a' }]);
    } finally {
      await new Promise((r) => fake.close(r));
    }
  });

  it('closes a connection that sends an oversized line, and keeps serving others', async () => {
    await start({ echo: async (p) => p }, { maxLineBytes: 1000 });
    const raw = net.connect(sock);
    let text = '';
    raw.setEncoding('utf8').on('data', (d: string) => (text += d));
    raw.write('{"id":1,"method":"echo","params":"' + 'x'.repeat(2000));
    await new Promise((r) => raw.once('close', r));
    expect(JSON.parse(text)).toMatchObject({
      id: 0,
      ok: false,
      error: { message: expect.stringMatching(/exceeds the 1000-byte limit/) },
    });
    const c = await connectControl(sock, { timeoutMs: 2000 });
    expect(await c.call('echo', 'ok')).toBe('ok');
    c.close();
  });

  it('refuses a second server on a socket something answers on', async () => {
    await start({});
    const e = await rejection(startControlServer(sock, {}, {}));
    expect(e.message).toBe('a controller for this cluster is already running');
    const c = await connectControl(sock, { timeoutMs: 2000 });
    expect(await c.call('subscribe')).toBeNull(); // the first one still serves
    c.close();
  });

  it('replaces the socket file a killed controller left behind', async () => {
    const child = spawn(process.execPath, [
      '-e',
      `require('net').createServer().listen(${JSON.stringify(sock)}, () => console.log('up'))`,
    ]);
    await new Promise((r) => child.stdout.once('data', r));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    expect(fs.statSync(sock).isSocket()).toBe(true);
    const stale = await rejection(connectControl(sock, { timeoutMs: 2000, cluster: 'lab' }));
    expect(stale.message).toBe('no controller is running for cluster lab');
    await start({ echo: async (p) => p });
    const c = await connectControl(sock, { timeoutMs: 2000 });
    expect(await c.call('echo', 1)).toBe(1);
    c.close();
  });

  it('refuses to replace a file that is not a socket', async () => {
    fs.writeFileSync(sock, 'mine');
    expect((await rejection(startControlServer(sock, {}, {}))).message).toMatch(/exists and is not a socket/);
    expect(fs.readFileSync(sock, 'utf8')).toBe('mine');
  });

  it('says no controller is running when the socket is missing, with a hint', async () => {
    const e = await rejection(connectControl(sock, { timeoutMs: 2000, cluster: 'lab' }));
    expect(e.message).toBe('no controller is running for cluster lab');
    expect(e).toBeInstanceOf(NoControllerError);
    expect(e.hint).toMatch(/sshcluster down/);
    expect(e.exitCode).toBe(1);
  });

  it('times out a call that gets no answer, and fails pending calls when the server goes', async () => {
    const s = await start({ hang: () => new Promise(() => {}) });
    const c = await connectControl(sock, { timeoutMs: 2000, cluster: 'lab' });
    expect((await rejection(c.call('hang', undefined, { timeoutMs: 50 }))).message).toBe(
      'the controller of cluster lab did not answer "hang" within 0.05s',
    );
    const pending = rejection(c.call('hang', undefined, { timeoutMs: 0 }));
    await s.close();
    expect((await pending).message).toMatch(/closed the connection before answering/);
    expect((await rejection(c.call('hang'))).message).toMatch(/closed/);
  });
});
