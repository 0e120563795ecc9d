// The dashboard's entry: Ink, React and the views. The build makes it a file of its own
// (dist/ui.js, ES modules: Ink's layout engine loads with a top-level await), which
// dashboard.ts loads on first use (load-ui.ts).
import { render, type Instance, type RenderOptions } from 'ink';
import { createElement } from 'react';
import type { DashboardActions } from './actions.js';
import { App } from './App.js';
import type { DashboardStore } from './store.js';

export function renderDashboard(
  props: { store: DashboardStore; actions: DashboardActions; color: boolean },
  options: RenderOptions,
): Instance {
  return render(createElement(App, props), options);
}
