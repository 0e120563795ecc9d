// Polls the status document (hosts, workers, metrics, adaptive) into the store.
import { useCallback, useEffect, useRef } from 'react';
import type { DashboardActions } from '../actions.js';
import type { DashboardStore } from '../store.js';

export function useStatusPoll(store: DashboardStore, actions: DashboardActions, intervalMs: number): () => void {
  const busy = useRef(false);
  const poll = useCallback(() => {
    if (busy.current) return;
    busy.current = true;
    actions
      .status()
      .then((st) => store.setStatus(st))
      .catch(() => undefined) // the next poll tries again; events keep flowing meanwhile
      .finally(() => (busy.current = false));
  }, [store, actions]);
  useEffect(() => {
    if (intervalMs <= 0) return;
    poll();
    const t = setInterval(poll, intervalMs);
    return () => clearInterval(t);
  }, [poll, intervalMs]);
  return poll;
}
