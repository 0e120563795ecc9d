// `e`: the controller's recent events (status events[]), newest at the bottom, in place
// of the logs: hosts lost and back, workers that died or were restarted, warnings.
import { Box, Text } from 'ink';
import type { ViewModel } from '../state/model.js';
import { fit } from './format.js';
import { useColor } from '../hooks/use-color.js';

export function EventsPane({ m, height, width }: { m: ViewModel; height: number; width: number }) {
  const c = useColor();
  const rows = Math.max(1, height - 1);
  const shown = m.events.slice(-rows);
  return (
    <Box flexDirection="column" height={height}>
      <Text bold wrap="truncate">{fit(`Events (last ${m.events.length}; e: back to the logs)`, width)}</Text>
      {shown.map((e, i) => (
        <Text key={`${e.time}-${i}`} wrap="truncate">
          <Text dimColor>{e.time.slice(11, 19)} </Text>
          <Text color={e.level === 'error' ? c('red') : e.level === 'warning' ? c('yellow') : undefined}>{`${e.subject}: ${e.text}`}</Text>
        </Text>
      ))}
      {m.events.length === 0 ? <Text dimColor>nothing has happened yet</Text> : null}
    </Box>
  );
}
