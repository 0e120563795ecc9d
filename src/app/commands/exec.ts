// Composition root of `sshcluster exec`: the same connections as `up` (bounded fan-out
// with jitter), the command on every selected host at once, output folded or prefixed.
import type { HostSpec } from '../../config/spec.js';
import { READER_GONE_EXIT, UsageError } from '../../errors.js';
import { jsonText, safeLine, safeText } from '../../events/terminal-text.js';
import { SshError } from '../../ssh/ssh-error.js';
import type { AppContext } from '../context.js';
import { execOnHost } from '../exec/exec-host.js';
import { connectLimiter } from '../transport/fan-out.js';
import { foldResults, renderFolds, summaryLine, worstCode, type HostResult } from '../exec/fold-output.js';
import { clusterHosts } from '../../config/spec.js';
import { matchHosts } from '../hosts/host-pattern.js';
import type { ShellPort } from '../../ssh/shell-port.js';
import { loadSpec } from './cluster-spec.js';
import { shellOpener } from './shell-opener.js';

export interface ExecOptions {
  file: string;
  command: string[];
  hosts?: string;
  fanout: number;
  timeoutMs: number;
  fold: boolean;
  json: boolean;
}

export async function runExec(ctx: AppContext, o: ExecOptions): Promise<number> {
  // Like ssh: the words after `--` are joined with spaces and run by the remote shell.
  const command = o.command.join(' ');
  if (command.trim() === '')
    throw new UsageError('no command given', { hint: 'sshcluster exec HOSTS.yaml -- COMMAND' });
  const spec = loadSpec(ctx, o.file);
  const all = clusterHosts(spec);
  const hosts = o.hosts === undefined ? all : matchHosts(all, o.hosts);
  const open = shellOpener(ctx, spec);
  const limit = connectLimiter({ fanout: o.fanout });
  const onLine =
    !o.fold && !o.json
      ? (host: string) => (line: string) => ctx.stdout.write(`${host}: ${safeLine(line)}\n`)
      : () => undefined;
  // Ctrl-C, SIGTERM or the reader gone: every host's command is stopped (by PID, as on
  // timeout) before this ends, not left running as `ssh HOST CMD` would leave it.
  const stop = new AbortController();
  const off = ctx.onSignal((sig) => stop.abort(sig));
  ctx.onReaderGone(() => stop.abort('reader'));
  const results = await Promise.all(
    hosts.map((h) =>
      limit(async () => (stop.signal.aborted ? new Error('interrupted before it connected') : openHost(open, h))).then(
        (s) => (s instanceof Error ? failed(h, s) : runOn(h, s)),
      ),
    ),
  ).finally(off);
  if (stop.signal.reason === 'reader') return READER_GONE_EXIT;

  async function runOn(h: HostSpec, shell: ShellPort): Promise<HostResult> {
    try {
      return await execOnHost(h, shell, {
        command,
        timeoutMs: o.timeoutMs,
        onLine: o.fold ? undefined : onLine(h.name),
        signal: stop.signal,
      });
    } catch (err) {
      return failed(h, err);
    } finally {
      shell.close();
    }
  }

  if (o.json) ctx.stdout.write(jsonText(jsonReport(results, command), 2) + '\n');
  else if (o.fold) ctx.stdout.write(renderFolds(foldResults(results), results.length));
  else writeFailures(ctx, results);
  const resets = results.filter((r) => r.status.kind === 'failed' && r.status.reason === 'reset').length;
  if (resets > 1 && !o.json) {
    ctx.stderr.write(
      `sshcluster: ${resets} connections reset during key exchange: likely sshd MaxStartups; lower --fanout (now ${o.fanout})\n`,
    );
  }
  return stop.signal.aborted ? (stop.signal.reason === 'SIGINT' ? 130 : 143) : worstCode(results);
}

async function openHost(open: (h: HostSpec) => Promise<ShellPort>, h: HostSpec): Promise<ShellPort | Error> {
  try {
    return await open(h);
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}

function failed(h: HostSpec, err: unknown): HostResult {
  const message = err instanceof Error ? err.message : String(err);
  const reason = err instanceof SshError ? err.reason : 'error';
  const hint = err instanceof SshError ? err.hint : undefined;
  const text = message.startsWith(`${h.name}: `) ? message.slice(h.name.length + 2) : message;
  return {
    host: h.name,
    status: { kind: 'failed', reason, message: text, ...(hint ? { hint } : {}), code: 255 },
    output: '',
    truncated: false,
  };
}

function writeFailures(ctx: AppContext, results: HostResult[]): void {
  for (const r of results) {
    if (r.status.kind === 'failed') {
      ctx.stdout.write(safeText(`${r.host}: sshcluster: ${r.status.message}\n`));
      if (r.status.hint) ctx.stdout.write(safeText(`${r.host}: sshcluster:   hint: ${r.status.hint}\n`));
    }
  }
  ctx.stdout.write(summaryLine(foldResults(results), results.length) + '\n');
}

function jsonReport(results: HostResult[], command: string) {
  return {
    command,
    exitCode: worstCode(results),
    // The counts as fields (`cut`), and `output` only what was kept: no marker line to parse.
    hosts: results.map((r) => ({
      host: r.host,
      ...r.status,
      output: r.cut ? r.output.slice(r.output.indexOf('\n') + 1) : r.output,
      truncated: r.truncated,
      ...(r.cut ? { cut: r.cut } : {}),
    })),
  };
}
