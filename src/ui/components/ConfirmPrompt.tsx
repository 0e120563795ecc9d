// r and - ask before they act: y does it, n or esc does not.
import { Box, Text } from 'ink';
import { useColor } from '../hooks/use-color.js';
import type { Confirm } from '../state/model.js';

export function ConfirmPrompt({ ask, desired }: { ask: Confirm; desired: number | null }) {
  const c = useColor();
  const question =
    ask.kind === 'restart'
      ? `Restart ${ask.name}? It is retired through the scheduler first (its data moves), then started again.`
      : `Scale down to ${ask.n} worker(s)${desired === null ? '' : ` (from ${desired})`}? Retired workers hand their data over first.`;
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={c('yellow')} paddingX={1}>
      <Text wrap="wrap">{question}</Text>
      <Text wrap="truncate">
        <Text bold>y</Text> yes{'    '}
        <Text bold>n</Text> / esc no
        {ask.kind === 'scale' ? (
          <Text>
            {'    '}
            <Text bold>-</Text> one fewer
          </Text>
        ) : null}
      </Text>
    </Box>
  );
}
