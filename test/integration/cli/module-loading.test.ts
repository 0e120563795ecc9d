// Each command loads what it uses (issue 15): `--help` only commander, `list` and
// `status` no SSH, YAML, X.509 or dashboard code. Measured on the built CLI with V8's
// coverage, which says which scripts ran and which of their functions were called:
// - dist/main.cjs is one bundle, where a module that is imported only when used is an
//   init function named by its source ("src/x.ts"), called when it is; the others (the
//   bundle's entry and what it imports statically) run at start;
// - any other file (ssh2's native parts, dist/ui.js) was loaded when it is in the coverage;
//   dist/inputs.json says which sources each of dist's files holds.
// So a later static import that drags one of them in fails here.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const BIN = path.resolve(import.meta.dirname, '../../../bin/sshcluster');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sshc-mods-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const DIST = path.resolve(import.meta.dirname, '../../../dist');
const MAIN = path.join(DIST, 'main.cjs');
if (!fs.existsSync(path.join(DIST, 'inputs.json')))
  throw new Error('dist/inputs.json is missing: run `npm run build` first (this test runs the built CLI)');
const inputs: Record<string, string[]> = JSON.parse(fs.readFileSync(path.join(DIST, 'inputs.json'), 'utf8'));

/** The bundle's sources that run at its start: those without an init function of their own. */
function bundleTopLevel(): string[] {
  const text = fs.readFileSync(MAIN, 'utf8');
  const wrapped = new Set([...text.matchAll(/^\s*"((?:src|node_modules)\/[^"]+)"\(/gm)].map((m) => m[1]!));
  const sections = new Set([...text.matchAll(/^\/\/ ((?:src|node_modules)\/\S+)$/gm)].map((m) => m[1]!));
  // The bundle's layout as this test reads it; if esbuild changes it, this says so.
  expect(wrapped.size, 'init functions found in dist/main.cjs').toBeGreaterThan(100);
  expect(sections.has('src/main.ts')).toBe(true);
  return [...sections].filter((s) => !wrapped.has(s));
}

interface ScriptCoverage {
  url: string;
  functions: { functionName: string; ranges: { count: number }[] }[];
}

/** Packages (node_modules) and our own modules (src/, without the extension) the command loaded. */
function loaded(args: string[]): { packages: string[]; own: string[] } {
  const dir = path.join(tmp, args.join('-'));
  const r = spawnSync(process.execPath, [BIN, ...args], {
    env: { ...process.env, NODE_V8_COVERAGE: dir, XDG_STATE_HOME: path.join(tmp, 'state'), NO_COLOR: '1' },
    encoding: 'utf8',
  });
  // `status` with no cluster running says so and exits 1: what it loaded is still its own.
  expect([0, 1], r.stderr).toContain(r.status);
  expect(r.stderr).not.toContain('unexpected error');
  const scripts = fs
    .readdirSync(dir)
    .flatMap((f) => (JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as { result: ScriptCoverage[] }).result);
  const sources = scripts.flatMap((s) => {
    const file = s.url.startsWith('file:') ? fileURLToPath(s.url) : '';
    if (file === MAIN)
      return [
        ...bundleTopLevel(),
        ...s.functions
          .filter((f) => /^(src|node_modules)\//.test(f.functionName) && f.ranges[0]!.count > 0)
          .map((f) => f.functionName),
      ];
    if (!file.startsWith(`${DIST}/`)) return [file];
    const held = inputs[path.relative(DIST, file)];
    expect(held, `${file} is not in dist/inputs.json: rebuild`).toBeDefined();
    return held!;
  });
  expect(sources, 'the bundle is in the coverage').toContain('src/main.ts');
  const packages = [...new Set(sources.flatMap((u) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(u)?.[1] ?? []))].sort();
  const own = [...new Set(sources.flatMap((u) => /^src\/(.+)\.tsx?$/.exec(u)?.[1] ?? []))].sort();
  return { packages, own };
}

const HEAVY = /^(ssh2|yaml|zod|ink|react|@peculiar\/.*|ssh-config)$/;
// Ours that would drag in the above or the controller: the SSH and TLS code, the Ink
// views, the running cluster's session and transport.
const DRAG = /^(ssh|tls|ui)\/|^app\/(controller\/cluster-session|remote\/)/;

describe('modules each command loads', () => {
  it('--help loads commander and the command table only', () => {
    const { packages, own } = loaded(['--help']);
    expect(packages).toEqual(['commander']);
    // The option parsers' own checks (names, durations, adaptive limits) and nothing else.
    expect(
      own.filter(
        (m) =>
          !/^(main|terminal|errors|cli\/.+|config\/(names|durations|defaults)|adaptive\/limits|events\/terminal-text)$/.test(
            m,
          ),
      ),
    ).toEqual([]);
  });

  it('list and status load no SSH, YAML, X.509 or dashboard code', () => {
    for (const cmd of ['list', 'status']) {
      const { packages, own } = loaded([cmd]);
      expect(
        packages.filter((p) => HEAVY.test(p)),
        cmd,
      ).toEqual([]);
      expect(
        own.filter((m) => DRAG.test(m)),
        cmd,
      ).toEqual([]);
    }
  });
});
