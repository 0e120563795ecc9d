// Adaptive settings in one line, as `adapt` confirms them and the controller's events
// record them: the worker bounds, the cores and memory bounds when set, the step.
import { bytes } from '../events/units.js';
import type { AdaptiveSpec } from '../config/spec.js';

/** "between 0 and 8 workers, at most 16 cores, at most 32G of memory, every 1s, scale down after 3 recommendations". */
export function adaptiveSettingsText(s: AdaptiveSpec): string {
  const bounds = [
    s.minimumCores !== undefined ? `at least ${cores(s.minimumCores)}` : '',
    s.maximumCores !== undefined ? `at most ${cores(s.maximumCores)}` : '',
    s.minimumMemory !== undefined ? `at least ${bytes(s.minimumMemory)} of memory` : '',
    s.maximumMemory !== undefined ? `at most ${bytes(s.maximumMemory)} of memory` : '',
  ].filter(Boolean);
  const max = Number.isFinite(s.maximum) ? String(s.maximum) : 'unbounded';
  return [
    `between ${s.minimum} and ${max} workers`,
    ...bounds,
    `every ${s.intervalMs / 1000}s`,
    `scale down after ${s.waitCount} recommendations`,
  ].join(', ');
}

const cores = (n: number): string => `${n} core${n === 1 ? '' : 's'}`;
