// The dashboard: header, start-up or hosts (or one host's workers), logs, a footer
// line; help and the quit prompt over the top half. Reads the store only; every
// cluster action goes through the DashboardActions port.
import { Box, Text } from 'ink';
import type { DashboardActions } from './actions.js';
import { Header, headerRows } from './components/Header.js';
import { HelpOverlay } from './components/HelpOverlay.js';
import { HostsTable } from './components/HostsTable.js';
import { LogPane } from './components/LogPane.js';
import { EventsPane } from './components/EventsPane.js';
import { WorkerDetail } from './components/WorkerDetail.js';
import { selectedHost, type ViewModel } from './state/model.js';
import { QuitPrompt, quitPromptRows } from './components/QuitPrompt.js';
import { ConfirmPrompt } from './components/ConfirmPrompt.js';
import { Footer, footerRows } from './components/Footer.js';
import { ConnectBox, connectBoxRows } from './components/ConnectBox.js';
import { StartupList } from './components/StartupList.js';
import type { DashboardStore } from './store.js';
import { ColorContext } from './hooks/use-color.js';
import { useClock } from './hooks/use-clock.js';
import { uptimeTextChangesIn } from '../events/units.js';
import { useDashboardKeys } from './hooks/use-dashboard-keys.js';
import { useStatusPoll } from './hooks/use-status-poll.js';
import { useStoreFrame } from './hooks/use-store-frame.js';
import { useTerminalSize } from './hooks/use-terminal-size.js';
import { WorkersTable } from './components/WorkersTable.js';

export interface AppProps {
  store: DashboardStore;
  actions: DashboardActions;
  /** false under NO_COLOR. */
  color?: boolean;
  /** Fixed size and clock for tests; otherwise the terminal's and Date.now. */
  size?: { width: number; height: number };
  now?: number;
  pollMs?: number;
  fps?: number;
}

export const MIN_WIDTH = 40;
export const MIN_HEIGHT = 10;

export function App(p: AppProps) {
  return (
    <ColorContext.Provider value={p.color ?? true}>
      <Dashboard {...p} />
    </ColorContext.Provider>
  );
}

function Dashboard({ store, actions, size, now: fixedNow, pollMs = 1_000, fps = 15 }: AppProps) {
  // The clock ticks at least once a second (unless fixed): status snapshots wait for it.
  const m = useStoreFrame(store, fps, fixedNow === undefined);
  // A spinner moves only during start-up; after it, what the clock changes is the uptime
  // shown: each second for a minute, then each minute.
  const now = useClock(m.phase === 'starting' ? 250 : uptimeTextChangesIn, fixedNow, m.startedAt ?? 0);
  const { width, height: rows } = useTerminalSize(size);
  // One row short of the screen: a frame as tall as the terminal makes Ink clear it every time.
  const height = Math.max(1, rows - 1);
  const refresh = useStatusPoll(store, actions, pollMs);
  // Help takes the whole screen but the footer: the header would squeeze it.
  const help = m.overlay === 'help';
  const body = height - (help ? 0 : headerRows(m)) - footerRows(m, width);
  // A prompt gets the rows it needs to be read whole; a table at most 45% of the body.
  const share = m.overlay === 'quit' || m.overlay === 'confirm' || m.overlay === 'connect' ? 0.6 : 0.45;
  const topRows =
    m.overlay === 'help'
      ? body
      : m.logsFull && m.overlay === 'none'
        ? 0
        : Math.max(3, Math.min(topWanted(m, width), Math.floor(body * share)));
  const logRows = Math.max(1, body - topRows);
  useDashboardKeys(store, actions, Math.max(1, logRows - 2), refresh);
  if (width < MIN_WIDTH || height < MIN_HEIGHT) {
    return (
      <Box flexDirection="column" width={width}>
        <Text wrap="truncate">
          sshcluster {m.name}: {m.phase}
        </Text>
        <Text wrap="truncate">
          terminal too small ({width}x{rows}); needs {MIN_WIDTH}x{MIN_HEIGHT + 1}
        </Text>
      </Box>
    );
  }
  // No overflow="hidden" here (the top box keeps its own): every part has its rows
  // counted (header, top box, panes, footer), and each clipping box around a line makes
  // Ink slice it again, every frame (this one: ~30% of an idle frame's CPU).
  return (
    <Box flexDirection="column" width={width} height={height}>
      {help ? null : <Header m={m} now={now} />}
      <Box flexDirection="column" height={topRows} overflow="hidden">
        {top(m, now, topRows, width, actions)}
      </Box>
      {m.overlay === 'help' ? null : m.showEvents ? (
        <EventsPane m={m} height={logRows} width={width} />
      ) : (
        <LogPane m={m} height={logRows} width={width} focused={m.focus === 'logs' || m.logsFull} />
      )}
      <Footer m={m} width={width} />
    </Box>
  );
}

function topWanted(m: ViewModel, width: number): number {
  if (m.overlay === 'quit') return quitPromptRows(width);
  if (m.overlay === 'confirm') return 6;
  if (m.overlay === 'worker') return 20;
  if (m.overlay === 'connect') return connectBoxRows(m.name, width);
  const h = selectedHost(m);
  if (m.detail && h) return m.workers.filter((w) => w.host === h.name).length + 3;
  return m.hosts.length + 1 + (m.phase === 'starting' ? 1 : 0);
}

function top(m: ViewModel, now: number, rows: number, width: number, actions: DashboardActions) {
  if (m.overlay === 'help') return <HelpOverlay mode={actions.mode} width={width} height={rows} />;
  if (m.overlay === 'quit') return <QuitPrompt width={width} />;
  if (m.overlay === 'confirm' && m.confirm) return <ConfirmPrompt ask={m.confirm} desired={m.desiredWorkers} />;
  if (m.overlay === 'worker') return <WorkerDetail m={m} height={rows} />;
  if (m.overlay === 'connect') return <ConnectBox name={m.name} width={width} />;
  if (m.logsFull) return null;
  const h = selectedHost(m);
  if (m.detail && h) return <WorkersTable m={m} host={h} height={rows} width={width} />;
  if (m.phase === 'starting') return <StartupList hosts={m.hosts} now={now} height={rows} />;
  return <HostsTable m={m} height={rows} width={width} focused={m.focus === 'hosts'} />;
}
