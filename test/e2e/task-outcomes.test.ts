// What a cluster says about work that failed: a task that kills the worker running it
// (os._exit) ends in KilledWorker; once its client has left, status must still count it
// erred, per task prefix too, and an event names the prefix and how often it killed.
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { daskClientInBackground, runCli, until } from './cli-driver.js';
import { getTestHosts } from './harness/context.js';
import { writeHostsYaml } from './harness/netns-hosts.js';

const info = getTestHosts();
const tmp = (name: string) => path.join(info.dir, name);
const env = { DASK_TEMPORARY_DIRECTORY: tmp('dask-scratch') };
const NAME = 'outcomes';

interface Prefix {
  prefix: string;
  done: number;
  erred: number;
  total: number;
  killedWorkers: number;
}
interface Status {
  schedulerAddress: string;
  tasks?: {
    progress: { done: number; total: number; erred: number; killedWorkers?: number; prefixes?: Prefix[] } | null;
  };
  events: { subject: string; text: string }[];
}

function status(): Status {
  const r = runCli(['status', '--name', NAME, '--json']);
  if (r.code !== 0) throw new Error(`status failed (${r.code}): ${r.stderr}`);
  return JSON.parse(r.stdout) as Status;
}

afterEach(() => {
  const down = runCli(['down', '--name', NAME], {}, 120_000);
  expect(down.code, down.stdout + down.stderr).toBe(0);
});

describe('task outcomes', () => {
  it('a task that kills its worker is erred, not done, after its client left; the event names its prefix', async () => {
    const hosts = info.hosts.slice(0, 3);
    const file = writeHostsYaml(tmp('outcomes.yaml'), { ...info, hosts }, { env, name: NAME });
    const up = runCli(['up', file, '--detach'], {}, 120_000);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    const address = status().schedulerAddress;
    // Dask's allowed-failures (3) applies: boom kills its worker (the nanny restarts it)
    // 4 times before the scheduler gives up with KilledWorker.
    const out = await daskClientInBackground(
      address,
      [
        'import os',
        'def boom(x):\n    os._exit(1)',
        'def ok(x):\n    return x',
        // Each on a host of its own: a task running beside boom dies with its worker too.
        `good = c.map(ok, range(3), workers=[${JSON.stringify(hosts[1]!.ip)}])`,
        `bad = c.submit(boom, 1, workers=[${JSON.stringify(hosts[2]!.ip)}])`,
        'wait(good + [bad])',
        'print(bad.status, type(bad.exception()).__name__, sum(c.gather(good)))',
      ].join('\n'),
    );
    expect(out.trim()).toBe('error KilledWorker 3');
    // The client has left: its tasks are forgotten by the scheduler.
    const s = await until('the progress without a client', () => {
      const st = status();
      return st.tasks?.progress && st.tasks.progress.total > 0 ? st : undefined;
    });
    const p = s.tasks!.progress!;
    console.log(`e2e: after the client left: ${JSON.stringify(p)}`);
    // The newest computation holds boom, and ok too where Dask groups both submissions
    // into one (2024.12; 2022.12 starts a new one after ok finished): 1 erred either way.
    expect(p.erred).toBe(1);
    expect(p.done).toBe(p.total - 1);
    expect([1, 4]).toContain(p.total);
    expect(p.prefixes?.find((x) => x.prefix === 'boom')).toMatchObject({ done: 0, erred: 1, total: 1 });
    expect(p.prefixes?.find((x) => x.prefix === 'boom')?.killedWorkers).toBe(4);
    if (p.total === 4)
      expect(p.prefixes?.find((x) => x.prefix === 'ok')).toMatchObject({
        done: 3,
        erred: 0,
        total: 3,
        killedWorkers: 0,
      });
    const text = runCli(['status', '--name', NAME]).stdout;
    expect(text).toMatch(/newest computation (3\/4 done \(75%\)|0\/1 done \(0%\)), 1 erred/);
    expect(text).toMatch(/ {4}boom: 0\/1 done, 1 erred, killed 4 workers\n/);
    const event = await until('the killed-worker event', () =>
      status().events.find((e) => /prefix boom killed the worker/.test(e.text)),
    );
    expect(event.text).toMatch(/tasks of prefix boom killed the worker running them 4 times; 1 of its 1 task erred/);
  });
});
