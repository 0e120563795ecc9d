// The newest computation by task prefix, under the header's tasks line, when it says
// more than the total does: several prefixes, or any erred or killing workers.
import { Text } from 'ink';
import type { TaskFigures } from '../../control/status-document.js';
import { prefixLines } from '../../control/task-figures-text.js';
import { useColor } from '../hooks/use-color.js';

/** Prefixes shown in the dashboard (status shows more). */
const SHOWN = 3;

export function prefixRows(t: TaskFigures | null | undefined): number {
  return t ? prefixLines(t, SHOWN).length : 0;
}

export function PrefixProgress({ tasks }: { tasks: TaskFigures }) {
  const c = useColor();
  return (
    <>
      {prefixLines(tasks, SHOWN).map((line, i) => (
        <Text key={i} wrap="truncate" color={/ erred/.test(line) ? c('red') : undefined}>
          {'  '}
          {line}
        </Text>
      ))}
    </>
  );
}
