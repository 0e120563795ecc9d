// Re-render on store changes at a bounded frame rate: thousands of log lines a second
// become at most `fps` frames; a key's change is rendered at once.
import { useEffect, useState } from 'react';
import type { ViewModel } from '../state/model.js';
import type { DashboardStore } from '../store.js';

export function useStoreFrame(store: DashboardStore, fps = 15): ViewModel {
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
    const off = store.subscribe((urgent) => {
      if (urgent) {
        clearTimeout(timer);
        timer = setTimeout(flush, 0);
      } else {
        timer ??= setTimeout(flush, Math.max(0, last + frameMs - Date.now()));
      }
    });
    return () => {
      off();
      clearTimeout(timer);
    };
  }, [store, fps]);
  return store.model;
}
