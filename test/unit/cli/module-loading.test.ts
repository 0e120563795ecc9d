// Each command loads what it uses (issue 15): `--help` only commander, `list` and
// `status` no SSH, YAML, X.509 or dashboard code. Measured on the built CLI with a
// module-resolve hook that records every file it loads; the build's dist/inputs.json says
// which sources each bundled file holds. So a later static import that drags one of them
// in fails here, and so does a chunking that puts one of them into a file these load.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const BIN = path.resolve(import.meta.dirname, '../../../bin/sshcluster');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sshc-mods-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const HOOK = path.join(tmp, 'record.mjs');
fs.writeFileSync(HOOK, [
  "import { register } from 'node:module';",
  "const hooks = `import fs from 'node:fs'; let file; export function initialize(d) { file = d.file; }",
  "export async function resolve(s, c, next) { const r = await next(s, c); fs.appendFileSync(file, r.url + '\\\\n'); return r; }`;",
  "register('data:text/javascript,' + encodeURIComponent(hooks), { data: { file: process.env.SSHC_MODULE_LOG } });",
].join('\n'));

const DIST = path.resolve(import.meta.dirname, '../../../dist');
if (!fs.existsSync(path.join(DIST, 'inputs.json'))) throw new Error('dist/inputs.json is missing: run `npm run build` first (this test runs the built CLI)');
const inputs: Record<string, string[]> = JSON.parse(fs.readFileSync(path.join(DIST, 'inputs.json'), 'utf8'));

/** Packages (node_modules) and our own modules (src/, without the extension) the command loaded. */
function loaded(args: string[]): { packages: string[]; own: string[] } {
  const log = path.join(tmp, `${args.join('-')}.log`);
  const r = spawnSync(process.execPath, ['--import', HOOK, BIN, ...args], {
    env: { ...process.env, SSHC_MODULE_LOG: log, XDG_STATE_HOME: path.join(tmp, 'state'), NO_COLOR: '1' },
    encoding: 'utf8',
  });
  // `status` with no cluster running says so and exits 1: what it loaded is still its own.
  expect([0, 1], r.stderr).toContain(r.status);
  expect(r.stderr).not.toContain('unexpected error');
  const urls = [...new Set(fs.readFileSync(log, 'utf8').trim().split('\n'))];
  const sources = urls.flatMap((u) => {
    const file = u.startsWith('file:') ? fileURLToPath(u) : '';
    if (!file.startsWith(`${DIST}/`)) return [file];
    const held = inputs[path.relative(DIST, file)];
    expect(held, `${file} is not in dist/inputs.json: rebuild`).toBeDefined();
    return held!;
  });
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
    expect(own.filter((m) => !/^(main|terminal|errors|cli\/.+|config\/(names|durations|defaults)|adaptive\/limits|events\/terminal-text)$/.test(m))).toEqual([]);
  });

  it('list and status load no SSH, YAML, X.509 or dashboard code', () => {
    for (const cmd of ['list', 'status']) {
      const { packages, own } = loaded([cmd]);
      expect(packages.filter((p) => HEAVY.test(p)), cmd).toEqual([]);
      expect(own.filter((m) => DRAG.test(m)), cmd).toEqual([]);
    }
  });
});
