// The unit project's setup file: a unit test is pure. Starting a process or opening a
// socket (listening or connecting) throws here, so such a test belongs in
// test/integration/ (project `integration`) instead.
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import { afterAll, vi } from 'vitest';

export class ImpureUnitTest extends Error {
  constructor(what: string) {
    super(`a unit test must not ${what}: move the test to test/integration/ (vitest project "integration")`);
    this.name = 'ImpureUnitTest';
  }
}

const forbid = (what: string) =>
  function forbidden(): never {
    throw new ImpureUnitTest(what);
  };

for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const) {
  Object.assign(childProcess, { [name]: forbid(`start a process (child_process.${name})`) });
}
net.Server.prototype.listen = forbid('open a listening socket (net.Server.listen)');
net.Socket.prototype.connect = forbid('open a socket (net.Socket.connect)');
// `import { spawn } from 'node:child_process'` sees the replacements too.
syncBuiltinESMExports();

// The unit project does not isolate its files (vitest.config.ts): a file that left the
// clock fake would hand it to the next file in its worker.
afterAll(() => {
  vi.useRealTimers();
});
