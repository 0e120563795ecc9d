// `?`: every key, from the key table (the same one the keys run from). Laid out to the
// room it has: help wrapped under its key when everything fits (at 80x24 it does, each
// key whole on its line), else one line a key (cut at the edge), else as many keys as
// fit and a line saying so. Never more lines than `height`, so nothing is squeezed.
import { Box, Text } from 'ink';
import { KEY_TABLE } from '../hooks/key-table.js';
import { fit } from './format.js';
import { wrapWords } from './wrap.js';

const KEY_WIDTH = 12;

export function HelpOverlay({
  mode,
  width,
  height,
}: {
  mode: 'controller' | 'attached';
  width: number;
  height: number;
}) {
  // No border: help has the screen, and at 80x24 the two rows hold keys.
  const inner = Math.max(10, width - 2);
  const room = Math.max(1, height - 1); // the title
  const note =
    mode === 'controller'
      ? "This terminal is the cluster's controller: quitting it stops the cluster."
      : 'Attached: leaving the dashboard leaves the cluster running.';
  return (
    <Box flexDirection="column" paddingX={1} width={width}>
      <Text bold>Keys</Text>
      {helpLines(inner, room, note).map((l, i) => (
        <Text key={i} wrap="truncate" dimColor={l.dim}>
          {l.text}
        </Text>
      ))}
    </Box>
  );
}

export function helpLines(width: number, room: number, note: string): { text: string; dim: boolean }[] {
  const key = (k: string) => k.padEnd(KEY_WIDTH);
  const wrapped = KEY_TABLE.flatMap((k) =>
    wrapWords(k.help, width - KEY_WIDTH).map((l, i) => ({
      text: (i === 0 ? key(k.keys) : ' '.repeat(KEY_WIDTH)) + l,
      dim: false,
    })),
  );
  const noteLines = wrapWords(note, width).map((text) => ({ text, dim: true }));
  if (wrapped.length + noteLines.length <= room) return [...wrapped, ...noteLines];
  const one = KEY_TABLE.map((k) => ({ text: fit(key(k.keys) + k.help, width), dim: false }));
  if (one.length <= room) return one;
  return [
    ...one.slice(0, Math.max(0, room - 1)),
    { text: `… ${one.length - room + 1} more keys: a taller terminal shows them`, dim: true },
  ];
}
