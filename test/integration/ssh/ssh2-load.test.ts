// src/ssh/ssh2.ts loads ssh2 without compiling its WebAssembly poly1305 (3.8 MB of a
// controller's RSS, issue 15) when the native binding does chacha20-poly1305; and ssh2
// still speaks chacha20-poly1305 and AES-GCM. Each case runs in a fresh node: ssh2 and
// require's cache are per process, and other tests here load ssh2 as it comes.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sshc-ssh2-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

// Counts WebAssembly compilations, loads ssh2 (ours or the package as it is), then runs
// one exec over a loopback ssh2 server for each cipher, the client offering only it.
const SCRIPT = `
import { createRequire } from 'node:module';
let compiled = 0;
for (const k of ['instantiate', 'instantiateStreaming', 'compile', 'compileStreaming']) {
  const f = WebAssembly[k];
  WebAssembly[k] = (...a) => (compiled++, f.apply(WebAssembly, a));
}
const require = createRequire(${JSON.stringify(path.join(ROOT, 'src/ssh/ssh2.ts'))});
// Ours is the client (all we load of ssh2); the test's server comes from the package,
// loaded after ours so that it shares the modules ours loaded.
const ours = process.argv[2] === 'ours' ? (await import(${JSON.stringify(path.join(ROOT, 'src/ssh/ssh2.ts'))})).ssh2() : undefined;
const ssh2 = { ...require('ssh2'), ...(ours ? { Client: ours.Client } : {}) };
await require('ssh2/lib/protocol/crypto.js').init;
const hostKey = ssh2.utils.generateKeyPairSync('ed25519').private;
async function roundTrip(cipher) {
  const server = new ssh2.Server({ hostKeys: [hostKey], algorithms: { cipher: [cipher] } }, (c) => {
    c.on('authentication', (ctx) => ctx.accept());
    c.on('session', (accept) => accept().on('exec', (acc, _rej, info) => {
      const s = acc();
      s.end(info.command.toUpperCase());
      s.exit(0);
    }));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const client = new ssh2.Client();
  const out = await new Promise((resolve, reject) => {
    client.on('error', reject).on('ready', () => client.exec('hello ' + cipher, (err, st) => {
      if (err) return reject(err);
      let text = '';
      st.on('data', (d) => (text += d)).on('close', () => resolve(text));
    }));
    client.connect({ host: '127.0.0.1', port: server.address().port, username: 'u', password: 'p', algorithms: { cipher: [cipher] } });
  });
  client.end();
  server.close();
  return out;
}
const echoed = [];
for (const c of ['chacha20-poly1305@openssh.com', 'aes128-gcm@openssh.com']) echoed.push(await roundTrip(c));
console.log(JSON.stringify({ compiled, echoed }));
`;
const script = path.join(tmp, 'load.mts');
fs.writeFileSync(script, SCRIPT);

function run(which: 'ours' | 'package'): { compiled: number; echoed: string[] } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', script, which], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout.trim().split('\n').pop()!);
}

const hasBinding = fs.existsSync(path.join(ROOT, 'node_modules/ssh2/lib/protocol/crypto/build/Release/sshcrypto.node'));

describe('loading ssh2', () => {
  it('the package as it comes compiles its WebAssembly poly1305 (what the count below would catch)', () => {
    expect(run('package')).toEqual({
      compiled: 1,
      echoed: ['HELLO CHACHA20-POLY1305@OPENSSH.COM', 'HELLO AES128-GCM@OPENSSH.COM'],
    });
  });

  it('ours compiles no WebAssembly when the binding is there, and still speaks chacha20-poly1305 and AES-GCM', () => {
    // Without the binding (it failed to build) ssh2 needs its poly1305: loaded as it comes.
    expect(run('ours')).toEqual({
      compiled: hasBinding ? 0 : 1,
      echoed: ['HELLO CHACHA20-POLY1305@OPENSSH.COM', 'HELLO AES128-GCM@OPENSSH.COM'],
    });
  });
});
