// Env values (the host file's `env:`) never reach a command line on any host (issue 12
// #2): a poller reads every /proc/*/cmdline, as any local user can, for the whole of
// `up`, `scale` and `exec` with a secret in env and a slow setup line (the window in
// which the login shell's command line used to show `export SECRET=…`). The values
// still arrive literally, and ps shows our processes by a short line (issue 11 #7).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { daskClient, runCli, sleep } from './cli-driver.js';
import { getTestHosts } from './harness/context.js';
import { processesIn, writeHostsYaml } from './harness/netns-hosts.js';

const info = getTestHosts();
const three = info.hosts.slice(0, 3);
const tmp = (name: string) => path.join(info.dir, name);
const MARK = `sshc-secret-${process.pid}-${Date.now()}`;
// Quotes, $(…), backticks, backslashes and a newline: all must arrive as written.
const SECRET = `${MARK} 'q' "d" $(touch ${tmp('pwned')}) \`id\` back\\slash\nline2`;

// Reads every process's command line again and again until its stdin closes; the
// marker comes in its environment, so its own command line does not hold it.
const POLLER = `
import os, sys, threading
mark = os.environ["MARK"].encode()
done = []
threading.Thread(target=lambda: (sys.stdin.read(), done.append(1)), daemon=True).start()
rounds = 0
while not done:
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                with open("/proc/%s/cmdline" % p, "rb") as f:
                    c = f.read()
            except OSError:
                continue
            if mark in c:
                print("HIT %s %r" % (p, c[:300]), flush=True)
    rounds += 1
print("ROUNDS %d" % rounds, flush=True)
`;

function startPoller() {
  const p = spawn('/usr/bin/python3', ['-c', POLLER], { env: { PATH: '/usr/bin:/bin', MARK } });
  let out = '';
  p.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((r) => p.on('close', () => r()));
  return {
    async stop(): Promise<{ hits: string[]; rounds: number }> {
      p.stdin.end();
      await exited;
      return {
        hits: out.split('\n').filter((l) => l.startsWith('HIT')),
        rounds: Number(/ROUNDS (\d+)/.exec(out)?.[1] ?? 0),
      };
    },
    kill: () => p.kill('SIGKILL'),
  };
}

/** SSH exec sessions sshd (LogLevel VERBOSE) has started, per host. */
const sessions = () =>
  three.map((h) => {
    const log = path.join(info.dir, `sshd-${info.hosts.indexOf(h)}.log`);
    return (fs.readFileSync(log, 'utf8').match(/Starting session: command/g) ?? []).length;
  });

let poller: ReturnType<typeof startPoller> | undefined;
afterAll(() => {
  poller?.kill();
  runCli(['down', '--name', 'secrets'], {}, 90_000);
});

describe('env secrets on the hosts', () => {
  it('appear on no command line during up, scale and exec, and reach the processes literally', async () => {
    const file = writeHostsYaml(
      tmp('secrets.yaml'),
      { ...info, hosts: three },
      {
        name: 'secrets',
        env: { AWS_SECRET_ACCESS_KEY: SECRET, DASK_TEMPORARY_DIRECTORY: tmp('dask-scratch') },
        setup: ['sleep 0.3'],
        worker_options: { nworkers: 2 },
      },
    );
    poller = startPoller();
    await sleep(200);
    const before = sessions();
    const up = runCli(['up', file, '--detach'], {}, 120_000);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    // For the record (bcd5248 printed 1, 2, 2 here too): no exec was added per process.
    const execs = sessions().map((n, i) => n - before[i]!);
    console.log(`SSH exec sessions per host during up (scheduler host first): ${execs.join(', ')}`);

    // Fewer, then more: new processes start while the poller watches.
    for (const n of ['1', '4']) {
      const scale = runCli(['scale', n, '--name', 'secrets'], {}, 120_000);
      expect(scale.code, scale.stdout + scale.stderr).toBe(0);
    }
    const address = `tcp://${three[0]!.ip}:8786`;
    const seen = JSON.parse(
      daskClient(
        address,
        'print(json.dumps(sorted(set(c.run(lambda: __import__("os").environ["AWS_SECRET_ACCESS_KEY"]).values()))))',
      ),
    );
    expect(seen).toEqual([SECRET]);

    const sha = createHash('sha256').update(SECRET).digest('hex');
    const ex = runCli(['exec', file, '--', 'printf %s "$AWS_SECRET_ACCESS_KEY" | sha256sum; sleep 1']);
    expect(ex.code, ex.stdout + ex.stderr).toBe(0);
    expect(ex.stdout).toContain(`${sha}  -`);

    // ps on a worker host: the launcher by name, the size of the files it wrote (the
    // workers' preload; optional without TLS) and the worker's argv, no program source.
    const ours = processesIn(three[1]!).filter((p) => p.cmdline.includes('sshcluster'));
    expect(
      ours.some((p) =>
        /\/sshcluster-launcher --optional-files=\d+ \S+-\d \/usr\/bin\/python3 -m distributed\.cli\.dask_worker tcp:/.test(
          p.cmdline,
        ),
      ),
    ).toBe(true);
    expect(ours.filter((p) => p.cmdline.length > 600).map((p) => p.cmdline.slice(0, 200))).toEqual([]);

    const down = runCli(['down', '--name', 'secrets'], {}, 90_000);
    expect(down.code, down.stdout + down.stderr).toBe(0);
    const { hits, rounds } = await poller.stop();
    poller = undefined;
    expect(hits).toEqual([]);
    expect(rounds).toBeGreaterThan(20);
    expect(fs.existsSync(tmp('pwned'))).toBe(false);
  });
});
