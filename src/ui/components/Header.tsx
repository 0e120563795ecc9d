// Cluster name, addresses, uptime, workers running / target, the scheduler's work
// (progress of the newest computation, tasks by state, clients, its own load), adaptive
// state and the demand it cannot place.
import { Box, Text } from 'ink';
import type { ViewModel } from '../state/model.js';
import { bytes, duration } from './format.js';
import { uptimeText } from '../../events/units.js';
import { clientsAndScheduler, progressBar, progressText, taskStates } from '../../control/task-figures-text.js';
import { useColor } from '../hooks/use-color.js';
import { PrefixProgress, prefixRows } from './PrefixProgress.js';
import { adaptiveStateText, lastChangeText } from '../../control/adaptive-text.js';

const PROGRESS_CELLS = 16;

/** Rows the header takes: three, one for the scheduler's work once known, one per unmet demand. */
export function headerRows(m: ViewModel): number {
  return 3 + (m.tasks ? 1 : 0) + prefixRows(m.tasks) + (m.adaptive?.unmet.length ?? 0);
}

export function Header({ m, now }: { m: ViewModel; now: number }) {
  const c = useColor();
  const running = m.workers.filter((w) => w.state === 'running').length;
  const phase = m.phase === 'up' ? null : m.phase === 'stopping' ? `stopping (${m.phaseReason ?? ''})` : m.phase;
  const certs = certsShort(m, now);
  const a = m.adaptive;
  const adaptive = a ? adaptiveStateText(a) + lastChangeText(a) : 'off';
  return (
    <Box flexDirection="column">
      <Text wrap="truncate">
        <Text bold color={c('cyan')}>
          sshcluster
        </Text>{' '}
        <Text bold>{m.name || '…'}</Text>
        {'  up '}
        {m.startedAt === null ? '-' : uptimeText(now - m.startedAt)}
        {'  workers '}
        <Text bold>{running}</Text>/{m.desiredWorkers ?? '-'}
        {phase ? <Text color={c('yellow')}>{'  ' + phase}</Text> : null}
        {certs ? <Text color={c(certs.expired ? 'red' : 'yellow')}>{'  ' + certs.text}</Text> : null}
      </Text>
      <Text wrap="truncate">
        {'scheduler '}
        {m.schedulerAddress || '-'}
        {'  dashboard '}
        {m.dashboardUrl || (m.phase === 'starting' ? 'once up' : '-')}
      </Text>
      {m.tasks ? (
        <Text wrap="truncate">
          {'tasks '}
          {progressText(m.tasks) ? <Text color={c('green')}>{progressBar(m.tasks, PROGRESS_CELLS) + ' '}</Text> : null}
          {progressText(m.tasks) ? <Text bold>{progressText(m.tasks)}</Text> : null}
          {(progressText(m.tasks) ? ' · ' : '') + taskStates(m.tasks) + ' · ' + clientsAndScheduler(m.tasks, bytes)}
        </Text>
      ) : null}
      {m.tasks ? <PrefixProgress tasks={m.tasks} /> : null}
      <Text wrap="truncate">
        {'adaptive '}
        {adaptive}
      </Text>
      {(a?.unmet ?? []).map((u) => (
        <Text key={u} wrap="truncate" color={c('yellow')}>
          {'unmet '}
          {u}
        </Text>
      ))}
    </Box>
  );
}

/** From 7 days before the certificates end (status's warning): "certs expire in 3d", then "certs EXPIRED". */
function certsShort(m: ViewModel, now: number): { text: string; expired: boolean } | null {
  const c = m.certificates;
  if (!c?.warning) return null;
  const left = Date.parse(c.notAfter) - now;
  if (left <= 0) return { text: 'certs EXPIRED', expired: true };
  const [n, unit] =
    left >= 86_400_000
      ? [left / 86_400_000, 'd']
      : left >= 3_600_000
        ? [left / 3_600_000, 'h']
        : [Math.max(1, left / 60_000), 'm'];
  return { text: `certs expire in ${Math.floor(n)}${unit}`, expired: false };
}
