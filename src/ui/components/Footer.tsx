// The bottom line: the keys, or a reply first and the keys in what it leaves. A reply is
// what the user is waiting to read (the keys are also under ?): it wraps onto up to
// MAX_ROWS rows rather than lose its end.
import { Box, Text } from 'ink';
import { footer } from '../hooks/key-table.js';
import { useColor } from '../hooks/use-color.js';
import type { ViewModel } from '../state/model.js';
import { fit } from './format.js';
import { wrapWords } from './wrap.js';

const MAX_ROWS = 3;

/** The reply's rows (none without one); the last is cut only past MAX_ROWS. */
function replyRows(m: ViewModel, width: number): string[] {
  if (!m.message) return [];
  const rows = wrapWords(m.message.text.replace(/\s*\n\s*/g, ' '), width);
  if (rows.length <= MAX_ROWS) return rows;
  return [...rows.slice(0, MAX_ROWS - 1), fit(rows.slice(MAX_ROWS - 1).join(' '), width)];
}

/** Rows the footer takes at this width. */
export function footerRows(m: ViewModel, width: number): number {
  return Math.max(1, replyRows(m, width).length);
}

export function Footer({ m, width }: { m: ViewModel; width: number }) {
  const c = useColor();
  const rows = replyRows(m, width);
  if (!m.message || rows.length === 0) {
    return (
      <Text wrap="truncate">
        <Text inverse>{footer(width)}</Text>
      </Text>
    );
  }
  const color = m.message.level === 'error' ? 'red' : m.message.level === 'warning' ? 'yellow' : undefined;
  const last = rows.at(-1)!;
  const keys = footer(width - last.length - 1);
  return (
    <Box flexDirection="column">
      {rows.map((r, i) => (
        <Text key={i} wrap="truncate">
          <Text color={color ? c(color) : undefined}>{r}</Text>
          {i === rows.length - 1 && keys ? (
            <Text>
              {' '}
              <Text inverse>{keys}</Text>
            </Text>
          ) : null}
        </Text>
      ))}
    </Box>
  );
}
