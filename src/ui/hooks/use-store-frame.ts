// Re-render on store changes at a bounded frame rate: thousands of log lines a second
// become at most `fps` frames; a key's change is rendered at once. With `ticking` (a
// clock that draws at least once a second), a status snapshot waits for its tick: an
// idle dashboard draws one frame a second, not one for the clock and one for the poll.
import { useEffect, useState } from 'react';
import type { ViewModel } from '../state/model.js';
import type { DashboardStore } from '../store.js';

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
      } else if (urgency === 'event' || !ticking) {
        timer ??= setTimeout(flush, Math.max(0, last + frameMs - Date.now()));
      }
    });
    return () => {
      off();
      clearTimeout(timer);
    };
  }, [store, fps, ticking]);
  return store.model;
}
