// `e`: the controller's recent events (status events[]), newest at the bottom, in place
// of the logs: hosts lost and back, workers that died or were restarted, warnings. Each
// wraps under its time: a sentence we write is never cut.
import { Box, Text } from 'ink';
import type { ViewModel } from '../state/model.js';
import { fit } from './format.js';
import { wrapWords } from './wrap.js';
import { useColor } from '../hooks/use-color.js';

const TIME = 9; // "12:00:01 "

export function EventsPane({ m, height, width }: { m: ViewModel; height: number; width: number }) {
  const c = useColor();
  const rows = Math.max(1, height - 1);
  const shown = m.events
    .slice(-rows)
    .flatMap((e, i) =>
      wrapWords(`${e.subject}: ${e.text}`, width - TIME).map((text, j) => ({
        key: `${e.time}-${i}-${j}`,
        time: j === 0 ? `${e.time.slice(11, 19)} ` : ' '.repeat(TIME),
        text,
        level: e.level,
      })),
    )
    .slice(-rows);
  return (
    <Box flexDirection="column" height={height}>
      <Text bold wrap="truncate">
        {fit(`Events (last ${m.events.length}; e: back to the logs)`, width)}
      </Text>
      {shown.map((r) => (
        <Text key={r.key} wrap="truncate">
          <Text dimColor>{r.time}</Text>
          <Text color={r.level === 'error' ? c('red') : r.level === 'warning' ? c('yellow') : undefined}>{r.text}</Text>
        </Text>
      ))}
      {m.events.length === 0 ? <Text dimColor>nothing has happened yet</Text> : null}
    </Box>
  );
}
