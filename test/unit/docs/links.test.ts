// Every relative link in the README, CONTRIBUTING, CHANGELOG and docs/ resolves: the file
// (or directory) is in the repository, and a #anchor names a heading of its file.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchors, relativeLinks, slug } from './markdown-links.js';

const root = path.resolve(new URL('../../..', import.meta.url).pathname);
const docs = fs
  .readdirSync(path.join(root, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .map((f) => `docs/${f}`);
const files = ['README.md', 'CONTRIBUTING.md', 'CHANGELOG.md', ...docs].filter((f) =>
  fs.existsSync(path.join(root, f)),
);

/** What is wrong with each relative link of one file ("README.md:12 docs/x.md: no such file"). */
function broken(file: string, read: (f: string) => string | undefined, dir: (f: string) => boolean = isDir): string[] {
  const out: string[] = [];
  for (const { line, target } of relativeLinks(read(file) ?? '')) {
    const [p, anchor] = target.split('#', 2) as [string, string | undefined];
    const to = p === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), decodeURIComponent(p)));
    const where = `${file}:${line} ${target}`;
    const inside = !to.startsWith('..');
    const text = inside ? read(to) : undefined;
    if (text === undefined && !(inside && dir(to))) {
      out.push(`${where}: no such file in the repository`);
      continue;
    }
    if (anchor !== undefined && to.endsWith('.md') && !anchors(text ?? '').has(anchor)) {
      out.push(`${where}: no heading #${anchor} in ${to}`);
    }
  }
  return out;
}

function isDir(rel: string): boolean {
  return fs.statSync(path.join(root, rel), { throwIfNoEntry: false })?.isDirectory() ?? false;
}

function readRepo(rel: string): string | undefined {
  const abs = path.join(root, rel);
  return fs.statSync(abs, { throwIfNoEntry: false })?.isFile() ? fs.readFileSync(abs, 'utf8') : undefined;
}

describe('relative links in the documentation', () => {
  it('checks the README, the changelog and docs/', () => {
    expect(files).toEqual(expect.arrayContaining(['README.md', 'CHANGELOG.md', 'docs/guide.md', 'docs/reference.md']));
    expect(files.flatMap((f) => relativeLinks(readRepo(f)!)).length).toBeGreaterThan(30);
  });

  it.each(files)('%s: every relative link and #anchor resolves', (file) => {
    expect(broken(file, readRepo)).toEqual([]);
  });
});

describe('the link checker', () => {
  const fake: Record<string, string> = {
    'README.md': [
      '# Title',
      'See [the guide](docs/guide.md#the-host-file), [gone](docs/gone.md), [bad](docs/guide.md#nope),',
      '[here](#title), [a dir](docs), [web](https://example.org/x), `[in code](nowhere.md)`.',
      '```',
      '[in a fence](nowhere.md)',
      '```',
    ].join('\n'),
    'docs/guide.md':
      '# Guide\n## The host file\n## `up --json` events\n## Again\n## Again\n[up](../README.md#title) [ev](#up---json-events) [2nd](#again-1)\n',
  };
  const read = (f: string): string | undefined => fake[f];

  it('reports a missing file and a missing heading, and nothing else', () => {
    expect(broken('README.md', read, (f) => f === 'docs').sort()).toEqual([
      'README.md:2 docs/gone.md: no such file in the repository',
      'README.md:2 docs/guide.md#nope: no heading #nope in docs/guide.md',
    ]);
    expect(broken('docs/guide.md', read, () => false)).toEqual([]);
    expect(
      broken(
        'docs/guide.md',
        (f) => (f === 'README.md' ? undefined : read(f)),
        () => false,
      ),
    ).toEqual(['docs/guide.md:6 ../README.md#title: no such file in the repository']);
  });

  it("makes GitHub's anchors", () => {
    expect(slug('`sshcluster exec HOSTS.yaml [--hosts PATTERN] -- COMMAND`')).toBe(
      'sshcluster-exec-hostsyaml---hosts-pattern----command',
    );
    expect(slug("Where `up`'s time over the floor goes (4 hosts)")).toBe('where-ups-time-over-the-floor-goes-4-hosts');
    expect(slug('`sshcluster drain HOST…`')).toBe('sshcluster-drain-host');
  });
});
