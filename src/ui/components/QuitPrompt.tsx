// q in a foreground `up`: this process is the controller, so the only choices are to
// tear the cluster down or to stay. Every line wraps: none is cut at 80 columns.
import { Box, Text } from 'ink';
import { useColor } from '../hooks/use-color.js';
import { wrapWords } from './wrap.js';

const TITLE = "Quit: this terminal is the cluster's controller.";
const CHOICES = ['t', ' tear the cluster down and quit    ', 'c', ' / esc cancel, keep watching'] as const;
const NOTE =
  'To leave a cluster running without a terminal: sshcluster up --detach, then sshcluster attach (q there detaches).';

/** Rows the prompt takes at `width` columns (its border and padding included). */
export function quitPromptRows(width: number): number {
  const inner = Math.max(10, width - 4);
  return 2 + [TITLE, CHOICES.join(''), NOTE].reduce((n, t) => n + wrapWords(t, inner).length, 0);
}

export function QuitPrompt({ width }: { width: number }) {
  const c = useColor();
  const inner = Math.max(10, width - 4);
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={c('yellow')} paddingX={1}>
      <Text bold wrap="wrap">
        {TITLE}
      </Text>
      <Text wrap="wrap">
        <Text bold>{CHOICES[0]}</Text>
        {CHOICES[1]}
        <Text bold>{CHOICES[2]}</Text>
        {CHOICES[3]}
      </Text>
      {wrapWords(NOTE, inner).map((l, i) => (
        <Text key={i} dimColor wrap="truncate">
          {l}
        </Text>
      ))}
    </Box>
  );
}
