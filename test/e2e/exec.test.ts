// sshcluster exec on the real namespace hosts: folded output, worst exit code, per-host
// timeout that stops the remote command, --hosts, --no-fold, --json, unreachable hosts.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, startCli, until } from './cli-driver.js';
import { getTestHosts } from './harness/context.js';
import { processesIn, writeHostsYaml } from './harness/netns-hosts.js';

const info = getTestHosts();
const tmp = (name: string) => path.join(info.dir, name);
const [h0, h1, h2] = info.hosts as [(typeof info.hosts)[0], (typeof info.hosts)[0], (typeof info.hosts)[0]];
const file = writeHostsYaml(tmp('exec.yaml'), info);
const n = info.hosts.length;
const prefix = h0.ip.replace(/\d+$/, '');
const allHosts = `${prefix}[${h0.ip.split('.').pop()}-${info.hosts[n - 1]!.ip.split('.').pop()}]`;

describe('sshcluster exec', () => {
  it('folds identical output under the host list and exits 0', () => {
    const r = runCli(['exec', file, '--', 'echo', 'hello;', 'echo', 'oops', '>&2']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`== ${allHosts} (${n}) ==\nhello\noops\n${n} host(s): ${n} ok\n`);
  });

  it("runs with the host file's env and exits with the worst code of the hosts", () => {
    const r = runCli(
      [
        'exec',
        file,
        '--',
        `case "$(hostname -I)" in *${h1.ip}*) echo odd; exit 3;; *${h2.ip}*) exit 1;; esac; echo "$GREETING"`,
      ],
      {},
    );
    expect(r.code).toBe(3);
    expect(r.stdout).toContain(`== ${h1.ip} (1): exit 3 ==\nodd\n`);
    expect(r.stdout).toContain(`== ${h2.ip} (1): exit 1 ==\n`);
    expect(r.stdout).toMatch(
      new RegExp(`${n} host\\(s\\): ${n - 2} ok, 1 exit 3, 1 exit 1|${n} host\\(s\\): ${n - 2} ok, 1 exit 1, 1 exit 3`),
    );
    const withEnv = writeHostsYaml(
      tmp('exec-env.yaml'),
      { ...info, hosts: [h0, h1] },
      { env: { GREETING: 'hi there' }, setup: ['FROM_SETUP=yes'] },
    );
    // After the login user's ~/.bashrc (the harness's stand-in sets SSHC_E2E_LOGIN_RC), as ssh runs it.
    expect(runCli(['exec', withEnv, '--', 'echo "$GREETING $FROM_SETUP $SSHC_E2E_LOGIN_RC"']).stdout).toContain(
      'hi there yes 1\n',
    );
  });

  it('selects hosts with --hosts and prefixes lines with --no-fold', () => {
    const r = runCli(['exec', file, '--hosts', `${h1.ip},${prefix}1[2]`, '--no-fold', '--', 'echo a; echo b']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines.filter((l) => l.startsWith(`${h1.ip}: `)).sort()).toEqual([`${h1.ip}: a`, `${h1.ip}: b`]);
    expect(lines.filter((l) => l.startsWith(`${h2.ip}: `))).toHaveLength(2);
    expect(lines.at(-1)).toBe('2 host(s): 2 ok');
    const none = runCli(['exec', file, '--hosts', 'web*', '--', 'true']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no host in the host file matches');
  });

  it('shows escape sequences a host prints as visible \\x escapes, folded and with --no-fold; --json keeps them as JSON escapes', () => {
    // Set the terminal title, clear the screen, C1 CSI (issue 12, finding 4).
    const cmd = `printf '\\033]0;HACKED\\007\\033[2J\\302\\233m|\\n'`;
    const shown = '\\x1b]0;HACKED\\x07\\x1b[2J\\x9bm|';
    const raw = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
    const folded = runCli(['exec', file, '--hosts', h1.ip, '--', cmd]);
    expect(folded.stdout).not.toMatch(raw);
    expect(folded.stdout).toContain(`\n${shown}\n`);
    const lines = runCli(['exec', file, '--hosts', h1.ip, '--no-fold', '--', cmd]);
    expect(lines.stdout).not.toMatch(raw);
    expect(lines.stdout).toContain(`${h1.ip}: ${shown}\n`);
    const json = runCli(['exec', file, '--hosts', h1.ip, '--json', '--', cmd]);
    expect(json.stdout).not.toMatch(raw);
    expect(JSON.parse(json.stdout).hosts[0].output).toBe('\x1b]0;HACKED\x07\x1b[2J\x9bm|\n');
  });

  it('past 1 MiB of output keeps the last whole lines under a marker saying what went; a long line is cut and marked, escaped', () => {
    // Before: the last 1,048,576 characters, so the kept output began mid-line under
    // "[… output cut to the last 1048576 characters]".
    const out = tmp('exec-flood.out');
    // Through a file: more than spawnSync's 1 MiB of stdout.
    const toFile = ['sh', '-c', `"$@" > ${out}`, 'sh'];
    const flood = runCli(['exec', file, '--hosts', h1.ip, '--', 'seq 1 300000'], {}, 60_000, toFile);
    expect(flood.code, flood.stderr).toBe(0);
    const kept = Array.from({ length: 149_796 }, (_, i) => String(150_205 + i)).join('\n');
    expect(fs.readFileSync(out, 'utf8')).toBe(
      `== ${h1.ip} (1) ==\n[… first 150204 lines (918.3 KiB) cut by sshcluster; the last 149796 lines (1.0 MiB) follow]\n${kept}\n1 host(s): 1 ok\n`,
    );
    const json = runCli(['exec', file, '--hosts', h1.ip, '--json', '--', 'seq 1 300000'], {}, 60_000, toFile);
    expect(json.code).toBe(0);
    const host = JSON.parse(fs.readFileSync(out, 'utf8')).hosts[0];
    expect(host.truncated).toBe(true);
    // The counts as fields, and only the kept lines in output (it began with the marker line).
    expect(host.cut).toEqual({ lines: 150_204, bytes: 940_323 });
    expect(host.output).toBe(`${kept}\n`);
    // One line of 20,004 bytes: its first 16 KiB, marked, and nothing of the rest as a line of its own.
    const long = `printf '\\033[2J'; head -c 20000 /dev/zero | tr '\\0' x; echo; echo after`;
    const shown = `\\x1b[2J${'x'.repeat(16_380)} …[3620 more bytes of this line cut]`;
    const folded = runCli(['exec', file, '--hosts', h1.ip, '--', long]);
    expect(folded.stdout).toBe(`== ${h1.ip} (1) ==\n${shown}\nafter\n1 host(s): 1 ok\n`);
    const lines = runCli(['exec', file, '--hosts', h1.ip, '--no-fold', '--', long]);
    expect(lines.stdout).toBe(`${h1.ip}: ${shown}\n${h1.ip}: after\n1 host(s): 1 ok\n`);
  });

  it('stops a command past --timeout on the host (exit 124) and leaves nothing running', () => {
    const t0 = Date.now();
    const r = runCli(['exec', file, '--hosts', h1.ip, '--timeout', '1s', '--', 'echo started; sleep 77; echo never']);
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect(r.code).toBe(124);
    expect(r.stdout).toContain(`== ${h1.ip} (1): timed out after 1s ==\nstarted\n`);
    expect(processesIn(h1).filter((p) => p.cmdline.includes('sleep 77'))).toEqual([]);
  });

  it("on Ctrl-C stops every host's command by PID before it exits (130), as OpenSSH would not", async () => {
    const run = startCli([
      'exec',
      file,
      '--hosts',
      `${h1.ip},${h2.ip}`,
      '--no-fold',
      '--',
      'echo started; sleep 78; echo never',
    ]);
    const sleeping = () => [h1, h2].flatMap((h) => processesIn(h).filter((p) => p.cmdline === 'sleep 78'));
    await until('both sleeps to run', () => (sleeping().length === 2 ? true : undefined));
    run.child.kill('SIGINT');
    expect((await run.exited).code).toBe(130);
    expect(run.output()).not.toContain('never');
    await until('the sleeps to be gone', () => (sleeping().length === 0 ? true : undefined), 10_000);
  });

  it('reports an unreachable host with its hint (exit 255) while the others run', () => {
    const down = h0.ip.replace(/\.\d+$/, '.252');
    const f = writeHostsYaml(
      tmp('exec-down.yaml'),
      { ...info, hosts: [h0, h1] },
      { connect_options: { connect_timeout: '2s' }, hosts: [h0.ip, h1.ip, down] },
    );
    const r = runCli(['exec', f, '--json', '--', 'echo up']);
    expect(r.code).toBe(255);
    const doc = JSON.parse(r.stdout);
    expect(doc.exitCode).toBe(255);
    expect(doc.hosts.filter((h: { kind: string }) => h.kind === 'exit')).toEqual([
      { host: h0.ip, kind: 'exit', code: 0, output: 'up\n', truncated: false },
      { host: h1.ip, kind: 'exit', code: 0, output: 'up\n', truncated: false },
    ]);
    expect(doc.hosts[2]).toMatchObject({ host: down, kind: 'failed', code: 255, hint: expect.stringMatching(/check/) });
    const plain = runCli(['exec', f, '--', 'true']);
    expect(plain.stdout).toMatch(
      new RegExp(`== ${down.replace(/\./g, '\\.')} \\(1\\): (timeout|unreachable) ==\\n.*\\n  hint: `),
    );
  });
});
