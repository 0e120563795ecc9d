// Start-up: each host's step with a spinner and the time spent in it.
import { Box, Text } from 'ink';
import type { HostView } from '../state/model.js';
import { duration, pad, spinner } from './format.js';
import { useColor } from '../hooks/use-color.js';

export function StartupList({ hosts, now, height }: { hosts: HostView[]; now: number; height: number }) {
  const c = useColor();
  // The title, the hosts, and a line for those left out: never more than `height` rows.
  const shown = hosts.length <= height - 1 ? hosts : hosts.slice(0, Math.max(1, height - 2));
  return (
    <Box flexDirection="column">
      <Text bold>Start-up</Text>
      {shown.map((h) => {
        const done = h.step === 'registered' || h.step === 'failed';
        const mark = h.step === 'failed' ? '✗' : h.step === 'registered' ? '✓' : spinner(now);
        const color = h.step === 'failed' ? 'red' : h.step === 'registered' ? 'green' : 'yellow';
        return (
          <Text key={h.name} wrap="truncate">
            <Text color={c(color)}>{mark}</Text> {pad(h.name, 24)}
            {pad(h.step, 12)}
            {done ? '' : duration(now - h.stepSince)}
            {h.step === 'failed' && h.reason ? <Text color={c('red')}>{h.reason}</Text> : null}
          </Text>
        );
      })}
      {hosts.length > shown.length ? <Text dimColor>… {hosts.length - shown.length} more</Text> : null}
    </Box>
  );
}
