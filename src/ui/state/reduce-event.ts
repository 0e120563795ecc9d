// ClusterEvents and status snapshots → the view model. Pure apart from the log ring,
// which is appended in place (copying 5,000 lines per event would not keep up).
import type { ClusterEvent } from '../../events/types.js';
import { decisionText, exitText } from '../../events/plain-sink.js';
import type { HostView, StepState, ViewModel } from './model.js';
import type { StatusJson } from '../../control/status-document.js';

export function reduceEvent(m: ViewModel, e: ClusterEvent, now: number): ViewModel {
  switch (e.kind) {
    case 'host-state': {
      const step: StepState | undefined =
        e.state === 'connecting'
          ? 'connecting'
          : e.state === 'starting'
            ? 'starting'
            : e.state === 'running'
              ? 'registered'
              : e.state === 'failed' || e.state === 'unreachable'
                ? 'failed'
                : undefined;
      return withHost(m, e.host, now, (h) => ({
        ...h,
        state: e.state,
        reason: e.reason ?? null,
        ...(step && step !== h.step ? { step, stepSince: now } : {}),
      }));
    }
    case 'process-line':
      m.logs.push(e.host, e.name, e.line);
      return { ...m, logVersion: m.logVersion + 1 };
    case 'process-started':
      return log(m, e.host, e.name, `${e.adopted ? 'adopted' : 'started'} (pid ${e.pid})`);
    case 'process-exit': {
      return log(m, e.host, e.name, exitText(e), e.expected ? 'info' : 'error');
    }
    case 'cluster-up': {
      const hosts = m.hosts.map((h) =>
        h.roles.includes('scheduler') && h.step !== 'registered'
          ? { ...h, step: 'registered' as const, stepSince: now }
          : h,
      );
      const up = {
        ...m,
        hosts,
        phase: 'up' as const,
        schedulerAddress: e.schedulerAddress,
        dashboardUrl: e.dashboardUrl,
      };
      return log(
        up,
        '',
        'sshcluster',
        `cluster up: ${e.workers.length} worker(s)${e.failedHosts.length ? `, failed hosts: ${e.failedHosts.join(', ')}` : ''}`,
      );
    }
    case 'teardown-started':
      return log(
        { ...m, phase: 'stopping', phaseReason: e.reason },
        '',
        'sshcluster',
        `stopping cluster (${e.reason})`,
      );
    case 'teardown-done': {
      const clean = e.leftover.length === 0;
      const text = clean
        ? 'cluster stopped; no process left on any host'
        : `cluster stopped; STILL RUNNING: ${e.leftover.map((l) => `${l.host} ${l.pids.join(' ')}`).join(', ')}`;
      return log({ ...m, phase: 'stopped' }, '', 'sshcluster', text, clean ? 'info' : 'error');
    }
    case 'adaptive-decision':
      return log(m, '', 'sshcluster', `adaptive: ${decisionText(e)}`);
    case 'notice': {
      const level = e.level;
      return {
        ...log(m, '', 'sshcluster', e.message, level),
        message: level === 'info' ? m.message : { text: e.message, level },
      };
    }
  }
}

export function reduceStatus(m: ViewModel, st: StatusJson, now: number): ViewModel {
  const byName = new Map(m.hosts.map((h) => [h.name, h]));
  const hosts = st.hosts.map((sh): HostView => {
    const old = byName.get(sh.name);
    const registered =
      st.workers.some((w) => w.host === sh.name && w.address !== null) ||
      (sh.roles.includes('scheduler') && m.phase !== 'starting');
    const step: StepState =
      old?.step === 'failed' && sh.state !== 'up' ? 'failed' : registered ? 'registered' : (old?.step ?? 'connecting');
    return {
      name: sh.name,
      roles: sh.roles,
      state: sh.state,
      reason: sh.lastError,
      step,
      stepSince: old && old.step === step ? old.stepSince : now,
    };
  });
  // Hosts only events have named so far keep their place after the status document's.
  for (const h of m.hosts) if (!st.hosts.some((s) => s.name === h.name)) hosts.push(h);
  return {
    ...m,
    name: st.name,
    schedulerAddress: st.schedulerAddress,
    // During start-up the URL is where the forward will listen, not yet ours (another
    // cluster may hold that port): shown once cluster-up says the forward holds it.
    dashboardUrl: m.phase === 'starting' ? m.dashboardUrl : st.dashboardUrl,
    startedAt: Date.parse(st.startedAt),
    desiredWorkers: st.desiredWorkers,
    hosts,
    workers: st.workers,
    adaptive: st.adaptive,
    tasks: st.tasks ?? null,
    certificates: st.certificates ?? null,
    events: st.events ?? m.events,
    selectedHost: Math.min(m.selectedHost, Math.max(0, hosts.length - 1)),
  };
}

function withHost(m: ViewModel, host: string, now: number, f: (h: HostView) => HostView): ViewModel {
  const i = m.hosts.findIndex((h) => h.name === host);
  const base: HostView = m.hosts[i] ?? {
    name: host,
    roles: [],
    state: 'connecting',
    reason: null,
    step: 'connecting',
    stepSince: now,
  };
  const hosts = i < 0 ? [...m.hosts, f(base)] : m.hosts.map((h, j) => (j === i ? f(h) : h));
  return { ...m, hosts };
}

function log(
  m: ViewModel,
  host: string,
  source: string,
  text: string,
  level?: 'info' | 'warning' | 'error',
): ViewModel {
  m.logs.push(host, source, text, level);
  return { ...m, logVersion: m.logVersion + 1 };
}
