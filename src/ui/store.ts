// The dashboard's store: applies events, status snapshots and UI commands to the view
// model and tells subscribers. Events can arrive thousands of times a second; frames
// are coalesced by the subscriber (use-store-frame.ts), keys ask for one at once.
// Events and snapshots carry remote text: control characters are escaped on the way in,
// so no component can draw them raw.
import { safeDeep, safeLine } from '../events/terminal-text.js';
import type { ClusterEvent } from '../events/types.js';
import { LogRing } from './state/log-ring.js';
import { initialModel, type Phase, type ViewModel } from './state/model.js';
import { reduceEvent, reduceStatus } from './state/reduce-event.js';
import { reduceUi, type UiCommand } from './state/reduce-ui.js';
import type { StatusJson } from '../control/status-document.js';
import { bytes } from '../events/units.js';

/**
 * How soon a change wants a frame: a key's at once; an event's within the frame rate; a
 * status snapshot's (once a second, mostly figures) with the clock's next tick, which
 * draws anyway (use-store-frame.ts).
 */
export type Urgency = 'key' | 'event' | 'status';
export type StoreListener = (urgency: Urgency) => void;

/**
 * A snapshot's values as the dashboard shows them, for telling a new one from the last:
 * memory as its text (47M), an idle time to 10 s (it grows by each poll's second).
 */
function shownValue(key: string, v: unknown): unknown {
  if (typeof v !== 'number') return v;
  if (key === 'idleS') return Math.floor(v / 10);
  return /Bytes$/.test(key) ? bytes(v) : v;
}

export class DashboardStore {
  private m: ViewModel;
  private readonly listeners = new Set<StoreListener>();
  /** The last status snapshot taken (less its uptime) and the model it left. */
  private lastStatus = '';
  private afterStatus: ViewModel | undefined;

  constructor(
    name = '',
    private readonly now: () => number = Date.now,
    capacity?: number,
    /** 'up' for attach: a controller that answers is past start-up. */
    phase: Phase = 'starting',
  ) {
    this.m = { ...initialModel(safeLine(name), new LogRing(capacity)), phase };
  }

  get model(): ViewModel {
    return this.m;
  }

  apply(e: ClusterEvent): void {
    this.set(reduceEvent(this.m, safeDeep(e), this.now()), 'event');
  }

  setStatus(st: StatusJson): void {
    // A poll that brings nothing new (an idle cluster) changes nothing and draws no frame;
    // its uptime is the clock's to show.
    const same = JSON.stringify({ ...st, uptimeS: 0 }, shownValue);
    if (same === this.lastStatus && this.m === this.afterStatus) return;
    this.lastStatus = same;
    this.set(reduceStatus(this.m, safeDeep(st), this.now()), 'status');
    this.afterStatus = this.m;
  }

  dispatch(c: UiCommand): void {
    this.set(reduceUi(this.m, c.kind === 'message' ? safeDeep(c) : c), 'key');
  }

  subscribe(l: StoreListener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  private set(next: ViewModel, urgency: Urgency): void {
    this.m = next;
    for (const l of this.listeners) l(urgency);
  }
}
