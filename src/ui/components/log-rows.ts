// A log line as the pane shows it: its source, the message without Dask's padding, and
// wrapped to the pane's width (continuation rows hang under the message), so a line at
// 80 columns says all it says.
import type { LogLevel, LogLine } from '../state/log-ring.js';
import { wrapWords } from './wrap.js';
import { logSource } from '../../events/log-source.js';

export interface LogRow {
  key: string;
  /** The source on a line's first row; blanks (or nothing) on the rows it wraps onto. */
  lead: string;
  first: boolean;
  source: string;
  text: string;
  level: LogLevel;
}

/** As `logs` and `up` off a terminal name the line's process. */
export function sourceLabel(l: Pick<LogLine, 'host' | 'source'>): string {
  return logSource(l.source, l.host);
}

/**
 * The message, not the padding: Dask's timestamp (the pane is live; `logs` keeps it),
 * its logger's name before the level (`distributed.scheduler - INFO - ` is `INFO `) and
 * runs of spaces go.
 */
export function compact(text: string): string {
  return text
    .replace(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} - /, '')
    .replace(/^distributed(?:\.[\w]+)* - (DEBUG|INFO|WARNING|ERROR|CRITICAL) - /, '$1 ')
    .replace(/\s{2,}/g, ' ');
}

/** The rows of one log line at `width` columns. */
export function logRows(l: LogLine, width: number): LogRow[] {
  const src = sourceLabel(l);
  const text = compact(l.text);
  const room = width - src.length - 3;
  // A message with less than half the width beside its source wraps onto full rows instead.
  const hang = room >= Math.max(20, Math.floor(width / 2));
  const head = wrapWords(text, Math.max(10, room))[0] ?? '';
  const rest = text.slice(head.length).trimStart();
  const more = rest ? wrapWords(rest, hang ? room : width - 2) : [];
  const row = (i: number, lead: string, t: string): LogRow => ({
    key: `${l.seq}-${i}`,
    lead,
    first: i === 0,
    source: l.source,
    text: t,
    level: l.level,
  });
  return [row(0, src, head), ...more.map((t, i) => row(i + 1, hang ? ' '.repeat(src.length) : '', t))];
}
