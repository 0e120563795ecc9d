// `bench/tui.ts --attach-idle`: the CPU a real `sshcluster attach` spends on an idle
// cluster. A detached cluster on namespace hosts (scheduler + one worker, nothing
// submitted), `attach` in a private tmux server at --cols x --rows, and, once its
// dashboard shows the cluster, the attach process's and the controller's CPU time
// (/proc/PID/stat utime + stime) over --seconds, as a share of one core.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { withDetachedCluster } from './detached.js';
import { BIN, preflight } from './hosts.js';
import { procStat, sleep } from './proc.js';

const CLOCK_TICKS = 100;
const cpuMs = (pid: number) => {
  const f = procStat(pid);
  return ((Number(f[11]) + Number(f[12])) * 1000) / CLOCK_TICKS;
};

export interface AttachIdleOptions {
  seconds: number;
  cols: number;
  rows: number;
  /** Seconds from the dashboard's first showing the cluster to the measure (default 3). */
  settle?: number;
}

export async function attachIdle(o: AttachIdleOptions): Promise<number> {
  preflight(() => (spawnSync('tmux', ['-V']).status === 0 ? [] : ['tmux not found: apt-get install -y tmux']));
  const socket = `sshc-bench-idle-${process.pid}`;
  const tmux = (...args: string[]) => spawnSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  const screen = () => tmux('capture-pane', '-p', '-t', 'idle').stdout ?? '';
  try {
    return await withDetachedCluster(
      { count: 2, name: 'bench-idle', security: 'tls', timeoutMs: 120_000 },
      async ({ env, name, stateHome }) => {
        const controller = (
          JSON.parse(readFileSync(path.join(stateHome, 'sshcluster', name, 'state.json'), 'utf8')) as {
            controller: { pid: number };
          }
        ).controller.pid;
        // As a person at the terminal runs it: no CI variable (Ink draws only the last frame under CI).
        const vars = `NO_COLOR=1 XDG_STATE_HOME=${stateHome} NODE_ENV=production`;
        // BENCH_PROF_DIR: attach writes a V8 CPU profile there (where its time goes).
        const prof = process.env.BENCH_PROF_DIR ? `--cpu-prof --cpu-prof-dir=${process.env.BENCH_PROF_DIR}` : '';
        const cmd = `exec env -u CI -u CONTINUOUS_INTEGRATION ${vars} ${process.execPath} ${prof} ${BIN} attach --name ${name}`;
        const r = tmux('new-session', '-d', '-s', 'idle', '-x', String(o.cols), '-y', String(o.rows), cmd);
        if (r.status !== 0) throw new Error(`tmux: ${r.stderr}`);
        const attach = Number(tmux('display', '-p', '-t', 'idle', '#{pane_pid}').stdout.trim());
        for (const until = Date.now() + 60_000; !/workers 1\/1/.test(screen()); await sleep(250)) {
          if (Date.now() > until) throw new Error(`attach did not show the cluster; screen:\n${screen()}`);
        }
        await sleep((o.settle ?? 3) * 1000); // past the first status polls and frames
        const a0 = cpuMs(attach);
        const c0 = cpuMs(controller);
        const t0 = performance.now();
        await sleep(o.seconds * 1000);
        const wall = performance.now() - t0;
        const share = (ms: number) => Number(((ms / wall) * 100).toFixed(2));
        console.log(
          JSON.stringify(
            {
              size: `${o.cols}x${o.rows}`,
              seconds: Number((wall / 1000).toFixed(1)),
              attachCpuPercentOfCore: share(cpuMs(attach) - a0),
              controllerCpuPercentOfCore: share(cpuMs(controller) - c0),
            },
            null,
            2,
          ),
        );
        if (process.env.BENCH_SCREEN) console.error(screen());
        tmux('kill-server'); // attach goes before the cluster does
        return 0;
      },
    );
  } finally {
    tmux('kill-server');
  }
}
