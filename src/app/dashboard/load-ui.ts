// Loads the dashboard's modules (src/ui/render.ts). The build puts them in dist/ui.js,
// an ES module, and replaces this file for the CommonJS bundle (scripts/build.mjs): a
// script that V8 runs from its code cache cannot import() by itself.
export function loadUi(): Promise<typeof import('../../ui/render.js')> {
  return import('../../ui/render.js');
}
