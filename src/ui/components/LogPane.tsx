// Merged live logs: one colour per source, WARNING / ERROR highlighted, follow or
// pinned, filtered by host or worker. Only the visible window is rendered.
import { Box, Text } from 'ink';
import { logMatcher, selectedHost, type ViewModel } from '../state/model.js';
import { fit } from './format.js';
import { sourceColor, useColor } from '../hooks/use-color.js';

export function LogPane({ m, height, width, focused }: { m: ViewModel; height: number; width: number; focused: boolean }) {
  const c = useColor();
  const rows = Math.max(1, height - 1);
  const lines = m.logs.window(rows, logMatcher(m), m.follow ? null : m.anchor);
  const host = m.detail ? selectedHost(m)?.name : undefined;
  const title =
    `Logs ${m.follow ? '[follow]' : '[paused: f or End follows]'}` +
    (host ? `  host ${host}` : '') +
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
            <Text color={color ? c(color) : undefined} bold={l.level === 'error'}>{compact(l.text)}</Text>
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
