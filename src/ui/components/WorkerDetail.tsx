// `x` on a selected worker: everything status knows of it, and its last log lines.
import { Box, Text } from 'ink';
import { selectedWorker, type ViewModel } from '../state/model.js';
import { bytes, duration } from './format.js';
import { compact } from './log-rows.js';

export function WorkerDetail({ m, height }: { m: ViewModel; height: number }) {
  const w = selectedWorker(m);
  if (!w) return <Text dimColor>no worker selected</Text>;
  const facts: [string, string][] = [
    ['state', w.state],
    ['pid', String(w.pid ?? '-')],
    ['address', w.address ?? '-'],
    ['threads', String(w.nthreads)],
    ['memory', `${bytes(w.memoryBytes)} of ${bytes(w.memoryLimitBytes)}`],
    ['cpu', w.cpu === undefined ? '-' : `${Math.round(w.cpu)}%`],
    [
      'tasks',
      w.processing === undefined
        ? String(w.executing ?? '-')
        : `${w.processing} processing, ${w.inMemory ?? 0} results in memory${w.idleS === undefined ? '' : `; idle ${duration(w.idleS * 1000)}`}`,
    ],
    ['restarts', `${w.restarts} by sshcluster, ${w.nannyRestarts ?? 0} by its nanny`],
  ];
  const room = Math.max(0, height - facts.length - 4);
  const lines = room ? m.logs.window(room, (l) => l.source === w.name, null) : [];
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1}>
      <Text bold wrap="truncate">{`${w.name} on ${w.host}  (x or esc closes)`}</Text>
      {facts.slice(0, Math.max(0, height - 3)).map(([k, v]) => (
        <Text key={k} wrap="truncate">
          <Text bold>{k.padEnd(10)}</Text>
          {v}
        </Text>
      ))}
      {lines.map((l) => (
        <Text key={l.seq} dimColor wrap="truncate">
          {compact(l.text)}
        </Text>
      ))}
    </Box>
  );
}
