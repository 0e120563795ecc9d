// `?`: every key, from the key table (the same one the keys run from); long lines wrap.
import { Box, Text } from 'ink';
import { KEY_TABLE } from '../hooks/key-table.js';

export function HelpOverlay({ mode }: { mode: 'controller' | 'attached' }) {
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1}>
      <Text bold>Keys</Text>
      {KEY_TABLE.map((k) => (
        <Box key={k.keys}>
          <Box width={12} flexShrink={0}>
            <Text bold>{k.keys}</Text>
          </Box>
          <Text wrap="wrap">{k.help}</Text>
        </Box>
      ))}
      <Text dimColor wrap="wrap">
        {mode === 'controller'
          ? 'This terminal runs the cluster: it stops when this dashboard does. For a cluster that outlives it: up --detach, then attach.'
          : 'Attached: leaving the dashboard leaves the cluster running.'}
      </Text>
    </Box>
  );
}
