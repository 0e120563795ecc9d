// One host of `exec`, over a real local shell: the PID line comes before the host's
// setup, so a setup that prints neither loses its line nor stands in for the PID (which
// then is printed as output, and a timeout or Ctrl-C has no group to stop).
import { describe, expect, it } from 'vitest';
import { execOnHost } from '../../../../src/app/exec/exec-host.js';
import { LocalShell } from '../../../../src/app/transport/local-shell.js';
import { testHost } from '../../../unit/config/spec-fixture.js';

describe('execOnHost', () => {
  it("keeps a printing setup's output and the command's own, and no PID among them", async () => {
    const shell = new LocalShell(process.env);
    try {
      const r = await execOnHost({ ...testHost('h1'), setup: ['echo hi from setup'] }, shell, {
        command: 'echo cmd-out',
        timeoutMs: 30_000,
      });
      expect(r.output.split('\n').filter(Boolean)).toEqual(['hi from setup', 'cmd-out']);
    } finally {
      shell.close();
    }
  });

  it("numbers a shell error by the command's own lines, not the script's around it (it said line 10 of a one-line command)", async () => {
    const shell = new LocalShell(process.env); // /bin/sh: dash on Debian
    try {
      const run = async (command: string) => {
        const r = await execOnHost(testHost('h1'), shell, { command, timeoutMs: 30_000 });
        return [r.output, r.status.code];
      };
      expect(await run('python3 -c print(1)')).toEqual(['/bin/sh: 1: eval: Syntax error: "(" unexpected\n', 2]);
      expect(await run('echo one\necho two\nif then')).toEqual([
        'one\ntwo\n/bin/sh: 3: eval: Syntax error: "then" unexpected\n',
        2,
      ]);
      // Still the login shell's own: its variables and its exit status.
      expect(await run('x=7; echo "$x"; exit 3')).toEqual(['7\n', 3]);
    } finally {
      shell.close();
    }
  });

  it('past 1 MiB keeps the last whole lines under a marker that counts what went (it began mid-line)', async () => {
    const shell = new LocalShell(process.env);
    try {
      // 1..300000, one a line: 2,088,895 bytes.
      const r = await execOnHost(testHost('h1'), shell, { command: 'seq 1 300000', timeoutMs: 60_000 });
      const [marker, ...lines] = r.output.split('\n');
      expect(lines.pop()).toBe('');
      expect(marker).toBe(
        '[… first 150204 lines (918.3 KiB) cut by sshcluster; the last 149796 lines (1.0 MiB) follow]',
      );
      const cut = 150_204;
      expect(cut + lines.length).toBe(300_000);
      expect(lines).toEqual(Array.from({ length: lines.length }, (_, i) => String(cut + i + 1)));
      expect(r.truncated).toBe(true);
      expect(r.cut).toEqual({ lines: cut, bytes: 940_323 });
    } finally {
      shell.close();
    }
  });

  it("offers the cluster's interpreter as $SSHCLUSTER_PYTHON: remote_python as given, or for auto the one found with distributed", async () => {
    const shell = new LocalShell(process.env);
    try {
      const python = async (remotePython: string) =>
        (
          await execOnHost({ ...testHost('h1'), remotePython }, shell, {
            command: 'echo "[$SSHCLUSTER_PYTHON]"',
            timeoutMs: 30_000,
          })
        ).output;
      expect(await python('/opt/venv/bin/python')).toBe('[/opt/venv/bin/python]\n');
      expect(await python('~/venv/bin/python')).toBe(`[${process.env.HOME}/venv/bin/python]\n`);
      // auto: a full path, one that has distributed (a login shell's python3 may be a shim without it).
      const found = (await python('auto')).trim().slice(1, -1);
      expect(found).toMatch(/^\//);
      const r = await execOnHost({ ...testHost('h1'), remotePython: 'auto' }, shell, {
        command: '"$SSHCLUSTER_PYTHON" -c "import distributed; print(1)"',
        timeoutMs: 60_000,
      });
      expect([r.output, r.status.code]).toEqual(['1\n', 0]);
    } finally {
      shell.close();
    }
  });
});
