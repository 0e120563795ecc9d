// A host's workers (enter on a host): select one for `r` (restart).
import { Box, Text } from 'ink';
import { workersOf, type HostView, type ViewModel } from '../state/model.js';
import { bytes, pad } from './format.js';
import { stateColor } from './HostsTable.js';
import { useColor } from '../hooks/use-color.js';

const COLUMNS = '  WORKER'.padEnd(26) + 'STATE'.padEnd(11) + 'PID'.padEnd(9) + 'THREADS '.padEnd(9) + 'MEMORY'.padEnd(14) + 'CPU'.padEnd(7) + 'TASKS '.padEnd(7) + 'RESTARTS  ADDRESS';

export function WorkersTable({ m, host, height }: { m: ViewModel; host: HostView; height: number }) {
  const c = useColor();
  const ws = workersOf(m, host.name);
  const rows = Math.max(1, height - 2);
  const first = Math.max(0, Math.min(m.selectedWorker - rows + 1, ws.length - rows));
  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate">{`${host.name}: ${ws.length} worker(s)  (esc: back, r: restart the selected worker)`}</Text>
      <Text bold wrap="truncate">{COLUMNS}</Text>
      {ws.slice(first, first + rows).map((w, i) => {
        const sel = first + i === m.selectedWorker;
        return (
          <Text key={w.name} wrap="truncate" inverse={sel}>
            {sel ? '▸ ' : '  '}
            {pad(w.name, 24)}
            <Text color={c(stateColor(w.state))}>{pad(w.state, 11)}</Text>
            {pad(String(w.pid ?? '-'), 9) + pad(String(w.nthreads), 9) + pad(`${bytes(w.memoryBytes)}/${bytes(w.memoryLimitBytes)}`, 14)}
            {pad(w.cpu === undefined ? '-' : `${Math.round(w.cpu)}%`, 7) + pad(String(w.executing ?? '-'), 7) + pad(String(w.restarts), 10) + (w.address ?? '-')}
          </Text>
        );
      })}
      {ws.length === 0 ? <Text dimColor>  no workers on this host</Text> : null}
    </Box>
  );
}
