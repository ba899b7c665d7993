/**
 * What `npm pack` puts in the tarball that `npm install -g` installs (README, "Running under
 * systemd"). Packed from a copy of the project, as a checkout in use looks: a config/docsync.json
 * holding secrets, the sources, the tests, and the dist/ this checkout built (`npm test` builds it
 * once for every test). The copy is packed with `--ignore-scripts`, so no second full build runs
 * here; what `prepack` adds is proven apart: it is `clean` then `build`, and `clean` removes a
 * dist/ left from an older build, so a module no longer built cannot ship.
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const ROOT = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

/** A copy of the project as a checkout in use holds it, with the dist/ `dist` makes. */
function checkout(dist: (dir: string) => void): string {
  const dir = tempDir();
  // No node_modules: npm never packs it, and with --ignore-scripts nothing runs that needs it.
  for (const entry of ['package.json', 'tsconfig.json', 'README.md', 'docs', 'src', 'config'])
    cpSync(path.join(ROOT, entry), path.join(dir, entry), { recursive: true });
  cpSync(path.join(ROOT, 'systemd'), path.join(dir, 'systemd'), { recursive: true });
  writeFileSync(path.join(dir, 'config', 'docsync.json'), '{"service":{"clientId":"c"}}');
  writeFileSync(path.join(dir, 'config', 'docsync.env'), 'DOCSYNC_CLIENT_SECRET=s3\n');
  cpSync(path.join(ROOT, 'test', 'unit'), path.join(dir, 'test', 'unit'), { recursive: true });
  dist(path.join(dir, 'dist'));
  return dir;
}

describe('npm pack', () => {
  it('builds afresh before packing: prepack is clean then build, and clean removes an older dist/', async () => {
    const scripts = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts;
    expect(scripts.prepack).toBe('npm run clean && npm run build');
    // A dist/ left from an older build, holding a module no longer built.
    const dir = tempDir();
    cpSync(path.join(ROOT, 'package.json'), path.join(dir, 'package.json'));
    mkdirSync(path.join(dir, 'dist', 'web'), { recursive: true });
    writeFileSync(path.join(dir, 'dist', 'web', 'removed-module.js'), 'export {};\n');

    await run('npm', ['run', 'clean'], { cwd: dir, timeout: 60_000 });

    expect(existsSync(path.join(dir, 'dist'))).toBe(false);
  });

  it('ships the build, the example config, the units, the README and docs/, and nothing else', async () => {
    expect(existsSync(path.join(ROOT, 'dist', 'cli.js')), 'npm run build first').toBe(true);
    // What `npm run build` makes in the copy: this checkout's build.
    const dir = checkout((dist) => cpSync(path.join(ROOT, 'dist'), dist, { recursive: true }));

    const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: dir,
      timeout: 60_000,
    });
    const [packed] = JSON.parse(stdout) as [{ files: { path: string }[] }];
    const files = packed.files.map((f) => f.path).sort();

    expect(files).toContain('dist/cli.js');
    expect(files).toContain('dist/web/status-server.js');
    expect(files).toContain('config/docsync.example.json');
    expect(files).toContain('systemd/docsync.service');
    expect(files).toContain('systemd/docsync@.service');
    expect(files).toContain('README.md');
    // The README's links lead into docs/: an installed user has them too.
    expect(files).toContain('docs/configuration.md');
    expect(files).toContain('docs/api-contract.md');
    expect(files).toContain('package.json');
    expect(files).not.toContain('config/docsync.json');
    expect(files).not.toContain('config/docsync.env');
    // Nothing but the build, the units, the example config and npm's own files.
    const unexpected = files.filter(
      (f) =>
        !/^dist\/.+\.js$/.test(f) &&
        !/^systemd\/docsync[^/]*\.(service|timer)$/.test(f) &&
        !/^docs\/[\w-]+\.md$/.test(f) &&
        !['config/docsync.example.json', 'README.md', 'package.json'].includes(f),
    );
    expect(unexpected).toEqual([]);
    expect(files.filter((f) => /test|\.ts$|\.map$/.test(f))).toEqual([]);
  });
});
