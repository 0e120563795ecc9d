// Merged live logs: one colour per source, WARNING / ERROR highlighted, follow or
// pinned, filtered by host or worker. Only the visible window is rendered.
import { Box, Text } from 'ink';
import { logMatcher, selectedHost, type ViewModel } from '../state/model.js';
import { fit } from './format.js';
import { sourceColor, useColor } from '../hooks/use-color.js';

export function LogPane({ m, height, width, focused }: { m: ViewModel; height: number; width: number; focused: boolean }) {
  const c = useColor();
  const rows = Math.max(1, height - 1);
  const match = logMatcher(m);
  const lines = m.logs.window(rows, match, m.follow ? null : m.anchor);
  const host = m.detail ? selectedHost(m)?.name : undefined;
  // Where a pinned view is, among the lines the filters let through.
  const pos = m.follow ? undefined : m.logs.position(match, m.anchor);
  const title =
    `Logs ${pos ? `[paused at ${pos.at} of ${pos.total}: f or End follows]` : '[follow]'}` +
    (host ? `  host ${host}` : '') +
    (m.minLevel !== 'info' ? `  level ${m.minLevel === 'warning' ? 'WARNING+' : 'ERROR'} (w)` : '') +
    (m.editingFilter || m.filter ? `  filter /${m.filter}${m.editingFilter ? '▏' : ''}` : '') +
    `  (${m.logs.size} kept)`;
  return (
    <Box flexDirection="column" height={height}>
      <Text bold wrap="truncate" color={focused ? c('cyan') : undefined}>{fit(title, width)}</Text>
      {lines.map((l) => {
        const src = l.host && l.source !== 'scheduler' && l.source.startsWith(l.host) ? l.source : l.host && l.source === 'scheduler' ? `${l.host}/scheduler` : l.source;
        const color = l.level === 'error' ? 'red' : l.level === 'warning' ? 'yellow' : undefined;
        return (
          <Text key={l.seq} wrap="truncate">
            <Text color={c(sourceColor(l.source))}>{src}</Text>
            {' │ '}
            <Highlighted text={compact(l.text)} word={m.filter} color={color ? c(color) : undefined} bold={l.level === 'error'} />
          </Text>
        );
      })}
    </Box>
  );
}

/**
 * The message, not the padding: Dask's timestamp (the pane is live; `logs` keeps it) and
 * runs of spaces go, so an 80-column pane still shows what a line says.
 */
export function compact(text: string): string {
  return text.replace(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} - /, '').replace(/\s{2,}/g, ' ');
}

/** The text cut around each occurrence of `word` (any case), the occurrences marked. */
export function highlightParts(text: string, word: string): { s: string; hit: boolean }[] {
  if (!word) return [{ s: text, hit: false }];
  const parts: { s: string; hit: boolean }[] = [];
  const lower = text.toLowerCase();
  const w = word.toLowerCase();
  let from = 0;
  for (let i = lower.indexOf(w); i >= 0; i = lower.indexOf(w, i + w.length)) {
    if (i > from) parts.push({ s: text.slice(from, i), hit: false });
    parts.push({ s: text.slice(i, i + w.length), hit: true });
    from = i + w.length;
  }
  if (from < text.length) parts.push({ s: text.slice(from), hit: false });
  return parts;
}

/** The message with the filter's word shown inverse. */
function Highlighted({ text, word, color, bold }: { text: string; word: string; color: string | undefined; bold: boolean }) {
  return (
    <>
      {highlightParts(text, word).map((p, i) => (
        <Text key={i} color={color} bold={bold} inverse={p.hit}>
          {p.s}
        </Text>
      ))}
    </>
  );
}
