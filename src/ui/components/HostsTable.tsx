// One row per host: workers, threads, memory used / limit, CPU, tasks executing,
// restarts, and its state with any failure reason inline. The selection scrolls, and
// hosts out of view are counted (+N more);
// columns the terminal has no room for are dropped (columns.ts), the state never.
import { Box, Text } from 'ink';
import { allRestarts, shownHostState, type WorkerStatus } from '../../control/status-document.js';
import { workerTasks } from '../../control/task-figures-text.js';
import { sortedHosts, workersOf, type HostView, type ViewModel } from '../state/model.js';
import { fitColumns, headerOf, nameWidth, type Column } from './columns.js';
import { bytes, pad, sum } from './format.js';
import { hostsWindow } from './hosts-window.js';
import { useColor } from '../hooks/use-color.js';

interface HostRow {
  h: HostView;
  all: WorkerStatus[];
  live: WorkerStatus[];
  running: WorkerStatus[];
}

function hostColumns(names: string[]): Column<HostRow>[] {
  const col = (
    title: string,
    width: number,
    drop: number | undefined,
    text: (r: HostRow) => string,
  ): Column<HostRow> => ({ title, width, drop, cell: (r) => pad(text(r), width) });
  return [
    col('HOST', nameWidth('HOST', names, 24), undefined, (r) => r.h.name),
    col('WORKERS', 9, undefined, (r) =>
      r.h.roles.includes('worker') || r.live.length ? `${r.running.length}/${r.live.length}` : '-',
    ),
    col('THREADS', 9, 1, (r) => (r.running.length ? String(sum(r.running.map((w) => w.nthreads)) ?? 0) : '-')),
    col('MEMORY', 14, 4, (r) =>
      r.running.length
        ? `${bytes(sum(r.running.map((w) => w.memoryBytes)))}/${bytes(sum(r.running.map((w) => w.memoryLimitBytes)))}`
        : '-',
    ),
    col('CPU', 7, 3, (r) => {
      const cpu = sum(r.running.map((w) => w.cpu));
      return cpu === undefined ? '-' : `${Math.round(cpu)}%`;
    }),
    col('TASKS', 7, 5, (r) => String(sum(r.running.map(workerTasks)) ?? '-')),
    col('RESTARTS', 9, 2, (r) => String(r.all.reduce((a, w) => a + allRestarts(w), 0))),
    { title: 'STATE', width: 12, min: 12, cell: (r) => shownState(r.h) },
  ];
}

export function stateColor(state: string): string {
  if (state === 'up' || state === 'running') return 'green';
  if (state === 'failed' || state === 'unreachable' || state === 'crashed') return 'red';
  return 'yellow';
}

function shownState(h: HostView): string {
  return h.step === 'failed' && h.state === 'connecting' ? 'failed' : shownHostState(h.state, h.reason);
}

export function HostsTable({
  m,
  height,
  width,
  focused,
}: {
  m: ViewModel;
  height: number;
  width: number;
  focused: boolean;
}) {
  const c = useColor();
  const rows = Math.max(1, height - 1);
  const hosts = sortedHosts(m);
  const win = hostsWindow(hosts.length, rows, m.selectedHost);
  const first = win.first;
  const shown = hosts.slice(first, first + win.shown);
  const cols = fitColumns(hostColumns(m.hosts.map((h) => h.name)), width);
  const cells = cols.slice(0, -1);
  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate" color={focused ? c('cyan') : undefined}>
        {headerOf(cols)}
      </Text>
      {shown.map((h, i) => {
        const sel = first + i === m.selectedHost;
        const all = m.workers.filter((w) => w.host === h.name);
        const live = workersOf(m, h.name);
        const row = { h, all, live, running: live.filter((w) => w.state === 'running') };
        const state = shownState(h);
        return (
          <Text key={h.name} wrap="truncate" inverse={sel && focused} bold={sel}>
            {sel ? '▸ ' : '  '}
            {cells.map((col) => col.cell(row)).join('')}
            <Text color={c(stateColor(state))}>{state}</Text>
            {/* An up host's reason is its last error, from before it recovered: not a failure now. */}
            {h.reason ? (
              state === 'up' ? (
                <Text dimColor>{` (earlier: ${h.reason})`}</Text>
              ) : (
                <Text color={c('red')}>{`: ${h.reason}`}</Text>
              )
            ) : null}
          </Text>
        );
      })}
      {win.more ? <Text dimColor wrap="truncate">{`  +${win.more} more (↑ ↓ to see them)`}</Text> : null}
    </Box>
  );
}
