// The dashboard in a real terminal: tmux runs `sshcluster up hosts.yaml` against the
// namespace hosts; capture-pane reads the screen, send-keys types.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { daskClient, daskClientInBackground, sleep, STATE_HOME } from './cli-driver.js';
import { getTestHosts } from './harness/context.js';
import { daskProcessesIn, writeHostsYaml } from './harness/netns-hosts.js';

const info = getTestHosts();
const three = info.hosts.slice(0, 3);
const BIN = path.resolve(import.meta.dirname, '../../bin/sshcluster');
// A private tmux server: its own socket, killed by that socket at the end.
const SOCKET = `sshc-tui-${process.pid}`;
const tmux = (...args: string[]) => spawnSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });
const screen = () => tmux('capture-pane', '-p', '-t', 'tui').stdout ?? '';

async function waitScreen(test: (s: string) => boolean, what: string, timeoutMs = 120_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = screen();
    if (test(s)) return s;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; screen:\n${s}`);
    await sleep(250);
  }
}

const daskLeft = () => info.hosts.flatMap((h) => daskProcessesIn(h).map((p) => `${h.name}:${p.pid}`));
const hostRow = (s: string, ip: string) => s.split('\n').find((l) => l.slice(2).startsWith(ip + ' ')) ?? '';

afterAll(async () => {
  tmux('kill-server');
  const deadline = Date.now() + 30_000;
  while (daskLeft().length && Date.now() < deadline) await sleep(250);
});

describe('the dashboard under tmux', () => {
  it('shows every host running and log lines; + adds a worker; r restarts one; q, t tears down and leaves no dask process', async () => {
    const [sched, ...workers] = three as [(typeof three)[0], ...typeof three];
    // Each worker host starts one worker and has room for a second: + has somewhere to go.
    const hosts = three.map((h, i) => ({
      host: h.ip,
      ...(i > 0 ? { max_workers: 2 } : {}),
      ...(h.port === 22 ? {} : { connect_options: { port: h.port } }),
    }));
    // Two threads each: the workload below holds one and the rest run on the other.
    const file = writeHostsYaml(path.join(info.dir, 'tui.yaml'), info, {
      name: 'tui',
      hosts,
      worker_options: { nthreads: 2 },
      env: { DASK_TEMPORARY_DIRECTORY: path.join(info.dir, 'dask-scratch') },
    });
    const env = `NO_COLOR=1 XDG_STATE_HOME=${STATE_HOME}`;
    // Ink draws only the last frame when it sees CI set (is-in-ci); a person at this
    // terminal would not have it, and CI runs this test with CI=true.
    const r = tmux(
      'new-session',
      '-d',
      '-s',
      'tui',
      '-x',
      '160',
      '-y',
      '48',
      `env -u CI -u CONTINUOUS_INTEGRATION ${env} ${process.execPath} ${BIN} up ${file}; echo EXIT=$?; sleep 600`,
    );
    expect(r.status, r.stderr).toBe(0);

    const up = await waitScreen(
      (s) =>
        /workers 2\/2/.test(s) &&
        workers.every((w) => /1\/1 .* up\s*$/.test(hostRow(s, w.ip))) &&
        /scheduler │ INFO /.test(s),
      'every host up with its worker and log lines',
    );
    expect(hostRow(up, sched.ip)).toMatch(/\bup\s*$/);
    expect(up).toContain(`scheduler tcp://${sched.ip}:8786`);
    // Dask's logger name is shortened to its level: the message has the room.
    expect(up).toMatch(new RegExp(`${workers[0]!.ip}-0 │ INFO `));
    expect(up).not.toContain('distributed.worker - INFO -');

    tmux('send-keys', '-t', 'tui', '+');
    const grown = await waitScreen((s) => /workers 3\/3/.test(s), 'a third worker in the table');
    expect(workers.some((w) => /2\/2/.test(hostRow(grown, w.ip)))).toBe(true);
    const seen = daskClient(`tcp://${sched.ip}:8786`, 'print(len(c.scheduler_info()["workers"]))');
    expect(Number(seen.trim())).toBe(3);

    // Down to the first worker host, enter: its workers; r restarts the selected one.
    const w0 = `${workers[0]!.ip}-0`;
    const pidRow = new RegExp(`▸ ${w0.replace(/\./g, '\\.')}\\s+running\\s+(\\d+)`);
    tmux('send-keys', '-t', 'tui', 'Down');
    tmux('send-keys', '-t', 'tui', 'Enter');
    const before = Number(pidRow.exec(await waitScreen((s) => pidRow.test(s), `${w0} selected`))![1]);
    tmux('send-keys', '-t', 'tui', 'r');
    await waitScreen((s) => s.includes(`Restart ${w0}?`), 'r to ask first');
    tmux('send-keys', '-t', 'tui', 'y');
    await waitScreen((s) => {
      const m = pidRow.exec(s);
      return m !== null && Number(m[1]) !== before;
    }, `${w0} running again with a new pid`);
    tmux('send-keys', '-t', 'tui', 'Escape');

    // A workload's progress under the header, and moving: one task held until a file
    // exists, submitted first (so the other 39, at a higher priority, join its
    // computation), then 39 that finish at once.
    const hold = path.join(info.dir, 'tui-hold');
    fs.rmSync(hold, { force: true });
    const work = daskClientInBackground(
      `tcp://${sched.ip}:8786`,
      [
        'import os',
        `hold = ${JSON.stringify(hold)}`,
        'def held(i):',
        '    while not os.path.exists(hold):',
        '        time.sleep(0.05)',
        '    return i',
        'first = c.submit(held, 0, pure=False)',
        'while not c.run_on_scheduler(lambda dask_scheduler: sum(len(ws.processing) for ws in dask_scheduler.workers.values())):',
        '    time.sleep(0.05)',
        'rest = c.map(lambda i: i, range(1, 40), priority=10, pure=False)',
        'print(sum(c.gather([first] + rest)))',
      ].join('\n'),
    );
    const partway = await waitScreen((s) => /tasks .*39\/40 done \(97%\)/.test(s), 'the workload at 39 of 40');
    expect(partway).toMatch(/39\/40 done \(97%\) · .*1 processing.* · 1 client · scheduler \d+%/);
    if (process.env.DASHBOARD_CAPTURE)
      fs.writeFileSync(process.env.DASHBOARD_CAPTURE, partway.replace(/\s+$/, '') + '\n');
    fs.writeFileSync(hold, '');
    await waitScreen((s) => /tasks .*40\/40 done \(100%\)/.test(s), 'the workload done');
    expect((await work).trim()).toBe('780');

    // A task that kills its worker once (the nanny restarts the worker process, the task
    // runs again and finishes): said in the events view and in the host's RESTARTS.
    const killed = path.join(info.dir, 'tui-killed');
    fs.rmSync(killed, { force: true });
    const once = daskClientInBackground(
      `tcp://${sched.ip}:8786`,
      [
        'import os',
        `mark = ${JSON.stringify(killed)}`,
        'def die_once():',
        '    if not os.path.exists(mark):',
        '        open(mark, "w").close()',
        '        os._exit(1)',
        '    return "survived"',
        'print(c.submit(die_once, pure=False).result(timeout=120))',
      ].join('\n'),
    );
    expect((await once).trim()).toBe('survived');
    tmux('send-keys', '-t', 'tui', 'e');
    const events = await waitScreen(
      (s) => /its nanny restarted it \(1 time/.test(s),
      'the nanny restart in the events view',
    );
    expect(events).toMatch(/Events/);
    expect(workers.some((w) => /\s1\s+up\s*$/.test(hostRow(events, w.ip)))).toBe(true); // RESTARTS 1 on its host
    tmux('send-keys', '-t', 'tui', 'e');

    // 100×30: every column of the hosts table fits, and the tasks line stays.
    expect(tmux('resize-window', '-t', 'tui', '-x', '100', '-y', '30').status).toBe(0);
    await waitScreen(
      (s) =>
        /^\s+HOST\s+WORKERS\s+THREADS\s+MEMORY\s+CPU\s+TASKS\s+RESTARTS\s+STATE\s*$/m.test(s) && /tasks .*done/.test(s),
      'the hosts table and the tasks line at 100 columns',
    );

    // 80×24: low-priority columns go, every header shown is whole, the state stays.
    expect(tmux('resize-window', '-t', 'tui', '-x', '80', '-y', '24').status).toBe(0);
    const narrow = await waitScreen(
      (s) => /^\s+HOST\s+WORKERS\s+MEMORY\s+CPU\s+TASKS\s+RESTARTS\s+STATE\s*$/m.test(s),
      'the hosts table at 80 columns',
    );
    for (const w of workers) expect(hostRow(narrow, w.ip)).toMatch(/\bup\s*$/);
    if (process.env.DASHBOARD_CAPTURE_NARROW)
      fs.writeFileSync(process.env.DASHBOARD_CAPTURE_NARROW, narrow.replace(/\s+$/, '') + '\n');
    // / finds a log line by a word of its message.
    tmux('send-keys', '-t', 'tui', '/');
    tmux('send-keys', '-t', 'tui', '-l', 'Registered');
    tmux('send-keys', '-t', 'tui', 'Enter');
    const found = await waitScreen(
      (s) => s.includes('filter /Registered') && /-\d │ .*Registered to/.test(s),
      'a log line found by a word of its message',
    );
    // Every line shown has the word: a line wraps at 80 columns (its rows after the first
    // hang under the message), so the word may be on a later row, never cut off.
    const entries: string[] = [];
    for (const row of found.split('\n').filter((l) => l.includes(' │ '))) {
      if (row.split('│')[0]!.trim()) entries.push(row);
      else if (entries.length) entries[entries.length - 1] += row; // the top line's head may be above the pane
    }
    expect(entries.length).toBeGreaterThan(0);
    expect(
      entries.every((e) => /Registered/i.test(e)),
      entries.join('\n'),
    ).toBe(true);

    // c: how to connect a client, whole at 80 columns.
    tmux('send-keys', '-t', 'tui', 'c');
    await waitScreen((s) => s.includes('eval "$(sshcluster env --name tui)"'), 'the connect box');
    tmux('send-keys', '-t', 'tui', 'Escape');
    await waitScreen((s) => !s.includes('sshcluster env --name'), 'the connect box closed');

    tmux('send-keys', '-t', 'tui', 'q');
    await waitScreen((s) => s.includes('tear the cluster down'), 'the quit prompt');
    tmux('send-keys', '-t', 'tui', 't');
    const end = await waitScreen((s) => /EXIT=\d+/.test(s), 'up to exit', 90_000);
    expect(end).toContain('verified: no process of this cluster is left on any host');
    expect(end).toContain('EXIT=0');
    expect(daskLeft()).toEqual([]);
  });
});
