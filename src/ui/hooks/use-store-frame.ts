// Re-render on store changes at a bounded frame rate: thousands of log lines a second
// become at most `fps` frames; a key's change is rendered at once. With `ticking` (a
// live clock), a status snapshot draws at most once a second; one that shows nothing new
// draws nothing (store.ts), so an idle dashboard draws when its figures or its uptime
// (each minute after the first) change.
import { useEffect, useState } from 'react';
import type { ViewModel } from '../state/model.js';
import type { DashboardStore } from '../store.js';

const STATUS_FRAME_MS = 1_000;

export function useStoreFrame(store: DashboardStore, fps = 15, ticking = false): ViewModel {
  const [, setFrame] = useState(0);
  useEffect(() => {
    const frameMs = 1000 / fps;
    let timer: NodeJS.Timeout | undefined;
    let last = 0;
    const flush = () => {
      timer = undefined;
      last = Date.now();
      setFrame((f) => f + 1);
    };
    const off = store.subscribe((urgency) => {
      if (urgency === 'key') {
        clearTimeout(timer);
        timer = setTimeout(flush, 0);
      } else {
        // A status snapshot (figures, polled each second) at most once a second.
        const gap = urgency === 'status' && ticking ? STATUS_FRAME_MS : frameMs;
        timer ??= setTimeout(flush, Math.max(0, last + gap - Date.now()));
      }
    });
    return () => {
      off();
      clearTimeout(timer);
    };
  }, [store, fps, ticking]);
  return store.model;
}
