// One row per host: workers, threads, memory used / limit, CPU, tasks executing,
// restarts, and its state with any failure reason inline. The selection scrolls.
import { Box, Text } from 'ink';
import { workersOf, type HostView, type ViewModel } from '../state/model.js';
import { bytes, pad, sum } from './format.js';
import { useColor } from '../hooks/use-color.js';

export const HOST_COLUMNS = '  HOST'.padEnd(26) + 'WORKERS '.padEnd(9) + 'THREADS '.padEnd(9) + 'MEMORY'.padEnd(14) + 'CPU'.padEnd(7) + 'TASKS '.padEnd(7) + 'RESTARTS '.padEnd(9) + 'STATE';

export function hostCells(m: ViewModel, h: HostView): string {
  const ws = m.workers.filter((w) => w.host === h.name);
  const live = workersOf(m, h.name);
  const running = live.filter((w) => w.state === 'running');
  const mem = `${bytes(sum(running.map((w) => w.memoryBytes)))}/${bytes(sum(running.map((w) => w.memoryLimitBytes)))}`;
  const cpu = sum(running.map((w) => w.cpu));
  return (
    pad(h.name, 24) +
    pad(h.roles.includes('worker') || live.length ? `${running.length}/${live.length}` : '-', 9) +
    pad(running.length ? String(sum(running.map((w) => w.nthreads)) ?? 0) : '-', 9) +
    pad(running.length ? mem : '-', 14) +
    pad(cpu === undefined ? '-' : `${Math.round(cpu)}%`, 7) +
    pad(String(sum(running.map((w) => w.executing)) ?? '-'), 7) +
    pad(String(ws.reduce((a, w) => a + w.restarts, 0)), 9)
  );
}

export function stateColor(state: string): string {
  if (state === 'up' || state === 'running') return 'green';
  if (state === 'failed' || state === 'unreachable' || state === 'crashed') return 'red';
  return 'yellow';
}

export function HostsTable({ m, height, focused }: { m: ViewModel; height: number; focused: boolean }) {
  const c = useColor();
  const rows = Math.max(1, height - 1);
  const first = Math.max(0, Math.min(m.selectedHost - rows + 1, m.hosts.length - rows));
  const shown = m.hosts.slice(first, first + rows);
  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate" color={focused ? c('cyan') : undefined}>{HOST_COLUMNS}</Text>
      {shown.map((h, i) => {
        const sel = first + i === m.selectedHost;
        const state = h.step === 'failed' && h.state === 'connecting' ? 'failed' : h.state;
        return (
          <Text key={h.name} wrap="truncate" inverse={sel && focused} bold={sel}>
            {sel ? '▸ ' : '  '}
            {hostCells(m, h)}
            <Text color={c(stateColor(state))}>{state}</Text>
            {h.reason ? <Text color={c('red')}>{`: ${h.reason}`}</Text> : null}
          </Text>
        );
      })}
    </Box>
  );
}
