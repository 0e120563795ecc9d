// `?`: every key in one place.
import { Box, Text } from 'ink';

const KEYS: [string, string][] = [
  ['?', 'this help (esc closes)'],
  ['q', 'quit (attach: detach, the cluster keeps running; up: asks first)'],
  ['+ / -', 'scale by one worker (turns adaptive off)'],
  ['a', 'adaptive on / off'],
  ['tab', 'focus hosts ↔ logs'],
  ['↑ ↓ / PgUp PgDn', 'select a host (hosts) or scroll (logs)'],
  ['enter', "a host's workers and only its logs; esc goes back"],
  ['r', 'restart the selected worker (in a host\'s view)'],
  ['l', 'logs full screen'],
  ['f / End', 'follow the logs on / off'],
  ['/', 'filter logs by host or worker name; enter keeps it, esc clears'],
  ['Ctrl-C', 'like Ctrl-C without the dashboard'],
];

export function HelpOverlay({ mode }: { mode: 'controller' | 'attached' }) {
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1}>
      <Text bold>Keys</Text>
      {KEYS.map(([k, v]) => (
        <Text key={k} wrap="truncate">
          <Text bold>{k.padEnd(18)}</Text>
          {v}
        </Text>
      ))}
      <Text dimColor wrap="truncate">
        {mode === 'controller'
          ? 'This terminal runs the cluster: it stops when this dashboard does. For a cluster that outlives it: up --detach, then attach.'
          : 'Attached: leaving the dashboard leaves the cluster running.'}
      </Text>
    </Box>
  );
}
