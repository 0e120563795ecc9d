// q in a foreground `up`: this process is the controller, so the only choices are to
// tear the cluster down or to stay.
import { Box, Text } from 'ink';
import { useColor } from '../hooks/use-color.js';

export function QuitPrompt() {
  const c = useColor();
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={c('yellow')} paddingX={1}>
      <Text bold>Quit: this terminal is the cluster's controller.</Text>
      <Text wrap="truncate">
        <Text bold>t</Text> tear the cluster down and quit{'    '}<Text bold>c</Text> / esc cancel, keep watching
      </Text>
      <Text dimColor wrap="truncate">
        To leave a cluster running without a terminal: sshcluster up --detach, then sshcluster attach (q there detaches).
      </Text>
    </Box>
  );
}
