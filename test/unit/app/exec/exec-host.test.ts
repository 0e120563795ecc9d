// One host of `exec`, over a real local shell: the PID line comes before the host's
// setup, so a setup that prints neither loses its line nor stands in for the PID (which
// then is printed as output, and a timeout or Ctrl-C has no group to stop).
import { describe, expect, it } from 'vitest';
import { execOnHost } from '../../../../src/app/exec/exec-host.js';
import { LocalShell } from '../../../../src/app/remote/local-shell.js';
import { testHost } from '../../config/spec-fixture.js';

describe('execOnHost', () => {
  it("keeps a printing setup's output and the command's own, and no PID among them", async () => {
    const shell = new LocalShell(process.env);
    try {
      const r = await execOnHost({ ...testHost('h1'), setup: ['echo hi from setup'] }, shell, { command: 'echo cmd-out', timeoutMs: 30_000 });
      expect(r.output.split('\n').filter(Boolean)).toEqual(['hi from setup', 'cmd-out']);
    } finally {
      shell.close();
    }
  });
});
