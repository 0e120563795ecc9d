// `?`: every key, from the key table (the same one the keys run from). Laid out to the
// room it has: help wrapped under its key when everything fits, else one line a key
// (cut at the edge), else as many keys as fit and a line saying so. Never more lines
// than `height`, so the box is never squeezed into garbage.
import { Box, Text } from 'ink';
import { KEY_TABLE } from '../hooks/key-table.js';
import { fit } from './format.js';

const KEY_WIDTH = 12;

export function HelpOverlay({ mode, width, height }: { mode: 'controller' | 'attached'; width: number; height: number }) {
  const inner = Math.max(10, width - 4);
  const room = Math.max(1, height - 3); // border and title
  const note = mode === 'controller'
    ? 'This terminal runs the cluster: it stops when this dashboard does. For a cluster that outlives it: up --detach, then attach.'
    : 'Attached: leaving the dashboard leaves the cluster running.';
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1} width={width}>
      <Text bold>Keys</Text>
      {helpLines(inner, room, note).map((l, i) => (
        <Text key={i} wrap="truncate" dimColor={l.dim}>{l.text}</Text>
      ))}
    </Box>
  );
}

export function helpLines(width: number, room: number, note: string): { text: string; dim: boolean }[] {
  const key = (k: string) => k.padEnd(KEY_WIDTH);
  const wrapped = KEY_TABLE.flatMap((k) => wrap(k.help, width - KEY_WIDTH).map((l, i) => ({ text: (i === 0 ? key(k.keys) : ' '.repeat(KEY_WIDTH)) + l, dim: false })));
  const noteLines = wrap(note, width).map((text) => ({ text, dim: true }));
  if (wrapped.length + noteLines.length <= room) return [...wrapped, ...noteLines];
  const one = KEY_TABLE.map((k) => ({ text: fit(key(k.keys) + k.help, width), dim: false }));
  if (one.length <= room) return one;
  return [...one.slice(0, Math.max(0, room - 1)), { text: `… ${one.length - room + 1} more keys: a taller terminal shows them`, dim: true }];
}

/** Words into lines of at most `width` (a longer word is cut). */
function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      out.push(line);
      line = '';
    }
    line = line ? `${line} ${word}` : word.slice(0, width);
  }
  if (line) out.push(line);
  return out;
}
