// Merged live logs: one colour per source, WARNING / ERROR highlighted, follow or
// pinned, filtered by host or worker, each line wrapped (log-rows.ts). Only the visible
// window is rendered: the lines that end at the bottom, at most a row each.
import { Box, Text } from 'ink';
import { logMatcher, selectedHost, type ViewModel } from '../state/model.js';
import { fit } from './format.js';
import { logRows } from './log-rows.js';
import { sourceColor, useColor } from '../hooks/use-color.js';

export { compact } from './log-rows.js';

export function LogPane({
  m,
  height,
  width,
  focused,
}: {
  m: ViewModel;
  height: number;
  width: number;
  focused: boolean;
}) {
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
      <Text bold wrap="truncate" color={focused ? c('cyan') : undefined}>
        {fit(title, width)}
      </Text>
      {lines
        .flatMap((l) => logRows(l, width))
        .slice(-rows)
        .map((r) => {
          const color = r.level === 'error' ? 'red' : r.level === 'warning' ? 'yellow' : undefined;
          return (
            <Text key={r.key} wrap="truncate">
              {r.first ? <Text color={c(sourceColor(r.source))}>{r.lead}</Text> : r.lead}
              {r.first || r.lead ? ' │ ' : '  '}
              <Highlighted
                text={r.text}
                word={m.filter}
                color={color ? c(color) : undefined}
                bold={r.level === 'error'}
              />
            </Text>
          );
        })}
    </Box>
  );
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
function Highlighted({
  text,
  word,
  color,
  bold,
}: {
  text: string;
  word: string;
  color: string | undefined;
  bold: boolean;
}) {
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
