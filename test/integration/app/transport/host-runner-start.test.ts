// A process's own setup lines (its host listing's) go before it; the runner's (the
// host's first listing) only where the process brings none.
import { describe, expect, it } from 'vitest';
import { LocalShell } from '../../../../src/app/transport/local-shell.js';
import { ShellHostRunner } from '../../../../src/app/transport/host-runner.js';
import type { ShellPort } from '../../../../src/ssh/shell-port.js';

describe('ShellHostRunner.start', () => {
  it("runs the process's setup lines, else the runner's", async () => {
    const shell = new LocalShell(process.env);
    const commands: string[] = [];
    const port: ShellPort = {
      exec: (c) => (commands.push(c), shell.exec(c)),
      run: (c, o) => shell.run(c, o),
      forwardOut: (h, p) => shell.forwardOut(h, p),
      onClose: () => shell.onClose(),
      close: () => shell.close(),
    };
    const runner = new ShellHostRunner({
      host: 'h1',
      clusterId: `s${process.pid}`,
      setup: ['true runner-setup'],
      shell: port,
      python: '/usr/bin/python3',
      env: {},
    });
    const argv = ['/usr/bin/python3', '-c', 'pass'];
    for (const spec of [{ name: 'own-0', setup: ['true own-setup'] }, { name: 'plain-0' }]) {
      const p = await runner.start({ host: 'h1', role: 'worker', argv, env: {}, ...spec });
      expect(await p.exited).toEqual({ code: 0, signal: null });
    }
    expect(commands[0]).toContain('true own-setup');
    expect(commands[0]).not.toContain('runner-setup');
    expect(commands[1]).toContain('true runner-setup');
    runner.close();
  });
});
