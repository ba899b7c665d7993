/**
 * The README a new user reads first (issue 27 case 4): a few screens, the two commands CI runs
 * at the very top, and the reference in docs/, with nothing that points outside what a user's
 * copy holds. readme-quick-start.test.ts runs its quick start.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const README = read('README.md');
const DOCS = readdirSync(path.join(ROOT, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .map((f) => `docs/${f}`);

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchor(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(text: string): Set<string> {
  const withoutCode = text.replace(/```[\s\S]*?```/g, '');
  return new Set([...withoutCode.matchAll(/^#+ (.+)$/gm)].map(([, h]) => anchor(h!)));
}

describe('README.md', () => {
  it('fits on a few screens and opens with the two commands, exactly as CI runs the second', () => {
    const lines = README.split('\n');
    expect(lines.length).toBeLessThanOrEqual(300);
    const first = /```sh\n([\s\S]*?)```/.exec(README)![1]!;
    expect(README.indexOf('```sh')).toBeLessThan(README.indexOf('\n\n', README.indexOf('# ')) + 3);
    const commands = first
      .trim()
      .split('\n')
      .map((l) => l.replace(/#.*$/, '').trim());
    expect(commands).toEqual(['npm ci && npm run demo', 'npm ci && npm test']);
    // .ci/run: a clean clone's `npm ci`, then `npm test`.
    const ci = read('.ci/run')
      .split('\n')
      .filter((l) => /^npm /.test(l))
      .map((l) => l.split(' ').slice(0, 2).join(' '));
    expect(ci).toEqual(['npm ci', 'npm test']);
  });

  it('keeps why the watcher is our own fs.watch per folder and not chokidar', () => {
    const paragraph = README.split('\n\n').find((p) => p.includes('chokidar'));
    expect(paragraph).toBeDefined();
    expect(paragraph).toContain('fs.watch');
    expect(paragraph).toMatch(/300,000 inotify watches/);
    expect(paragraph).toMatch(/100,000\s+documents/);
  });

  it('names the server paths the units use, and their umask', () => {
    for (const p of [
      '/etc/docsync/docsync.json',
      '/etc/docsync/docsync.env',
      '/var/lib/docsync/state/docsync.db',
      '/srv/documents/compliance',
      '/usr/local/lib/node_modules/docsync',
      'UMask=0007',
    ]) {
      expect(README).toContain(p);
    }
  });
});

describe('README.md and docs/', () => {
  it('point at nothing a user’s copy lacks: no ../shared, and every link leads to a file and heading there', () => {
    const broken: string[] = [];
    for (const file of ['README.md', ...DOCS]) {
      const text = read(file);
      if (text.includes('../shared')) broken.push(`${file}: ../shared`);
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(https?:|mailto:)/.test(target!)) continue;
        const [linked, hash] = target!.split('#') as [string, string | undefined];
        const into = linked === '' ? file : path.posix.join(path.posix.dirname(file), linked);
        let body: string;
        try {
          body = read(into);
        } catch {
          broken.push(`${file}: ${target} (no such file)`);
          continue;
        }
        if (hash && !anchorsOf(body).has(hash)) broken.push(`${file}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('carry the API contract the project is built against, with its marks', () => {
    const contract = read('docs/api-contract.md');
    for (const mark of ['[seed]', '[public]', '[ours]']) expect(contract).toContain(mark);
    for (const section of [
      '## Authentication',
      '## Documents of a company or a trust',
      '## Webhooks',
    ]) {
      expect(contract).toContain(section);
    }
  });
});
