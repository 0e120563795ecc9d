// The unit lane stays pure: its setup file (test/support/pure-guard.ts) makes starting a
// process or opening a socket throw, whichever way the module is imported.
import * as cp from 'node:child_process';
import { execFile, spawn } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { describe, expect, it } from 'vitest';

const IMPURE = /a unit test must not .*move the test to test\/integration\//;

describe('the unit lane', () => {
  it('refuses to start a process (named import, namespace, sync and fork)', () => {
    expect(() => spawn('true')).toThrow(IMPURE);
    expect(() => execFile('true')).toThrow(IMPURE);
    expect(() => cp.spawnSync('true')).toThrow(IMPURE);
    expect(() => cp.execSync('true')).toThrow(IMPURE);
    expect(() => cp.fork('x.js')).toThrow(IMPURE);
  });
  it('refuses to listen, as a net or an http server', () => {
    expect(() => net.createServer().listen(0)).toThrow(IMPURE);
    expect(() => http.createServer().listen(0)).toThrow(IMPURE);
  });
  it('refuses to open a connection', () => {
    expect(() => net.connect(1, '127.0.0.1')).toThrow(IMPURE);
  });
});
