// A host's workers (enter on a host): select one for `r` (restart). Columns the
// terminal has no room for are dropped (columns.ts): threads, pid, address, idle first.
import { Box, Text } from 'ink';
import { allRestarts, type WorkerStatus } from '../../control/status-document.js';
import { workerTasks } from '../../control/task-figures-text.js';
import { workersOf, type HostView, type ViewModel } from '../state/model.js';
import { fitColumns, headerOf, nameWidth, type Column } from './columns.js';
import { bytes, duration, pad } from './format.js';
import { stateColor } from './HostsTable.js';
import { useColor } from '../hooks/use-color.js';

function workerColumns(names: string[]): Column<WorkerStatus>[] {
  const col = (
    title: string,
    width: number,
    drop: number | undefined,
    text: (w: WorkerStatus) => string,
  ): Column<WorkerStatus> => ({ title, width, drop, cell: (w) => pad(text(w), width) });
  return [
    col('WORKER', nameWidth('WORKER', names, 24), undefined, (w) => w.name),
    col('STATE', 11, undefined, (w) => w.state),
    col('PID', 9, 2, (w) => String(w.pid ?? '-')),
    col('THREADS', 9, 1, (w) => String(w.nthreads)),
    col('MEMORY', 14, 5, (w) => `${bytes(w.memoryBytes)}/${bytes(w.memoryLimitBytes)}`),
    col('CPU', 7, 4, (w) => (w.cpu === undefined ? '-' : `${Math.round(w.cpu)}%`)),
    col('TASKS', 7, undefined, (w) => String(workerTasks(w) ?? '-')),
    col('RESTARTS', 10, undefined, (w) => String(allRestarts(w))),
    col('IDLE', 7, 3.5, (w) => (w.idleS === undefined ? '-' : duration(w.idleS * 1000))),
    { title: 'ADDRESS', width: 28, min: 28, drop: 3, cell: (w) => w.address ?? '-' },
  ];
}

export function WorkersTable({
  m,
  host,
  height,
  width,
}: {
  m: ViewModel;
  host: HostView;
  height: number;
  width: number;
}) {
  const c = useColor();
  const ws = workersOf(m, host.name);
  const rows = Math.max(1, height - 2);
  const first = Math.max(0, Math.min(m.selectedWorker - rows + 1, ws.length - rows));
  const cols = fitColumns(workerColumns(ws.map((w) => w.name)), width);
  return (
    <Box flexDirection="column">
      <Text
        bold
        wrap="truncate"
      >{`${host.name}: ${ws.length} worker(s)  (esc: back, r: restart the selected worker)`}</Text>
      <Text bold wrap="truncate">
        {headerOf(cols)}
      </Text>
      {ws.slice(first, first + rows).map((w, i) => {
        const sel = first + i === m.selectedWorker;
        return (
          <Text key={w.name} wrap="truncate" inverse={sel}>
            {sel ? '▸ ' : '  '}
            {cols.map((col) =>
              col.title === 'STATE' ? (
                <Text key={col.title} color={c(stateColor(w.state))}>
                  {col.cell(w)}
                </Text>
              ) : (
                col.cell(w)
              ),
            )}
          </Text>
        );
      })}
      {ws.length === 0 ? <Text dimColor> no workers on this host</Text> : null}
    </Box>
  );
}
