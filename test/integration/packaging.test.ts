/**
 * What `npm pack` puts in the tarball that `npm install -g` installs (README, "Running under
 * systemd"). Packed from a copy of the project, as a checkout in use looks: a config/docsync.json
 * holding secrets, a dist/ left from an older build, the tests. The copy's dist/ is rebuilt by
 * `prepack`, so this test never touches the dist/ the other tests run.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const ROOT = path.resolve(import.meta.dirname, '../..');

describe('npm pack', () => {
  it('ships a fresh build, the example config, the units, the README and docs/, and nothing else', async () => {
    const dir = tempDir();
    for (const entry of [
      'package.json',
      'tsconfig.json',
      'README.md',
      'docs',
      'src',
      'config',
      'systemd',
    ])
      cpSync(path.join(ROOT, entry), path.join(dir, entry), { recursive: true });
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
    writeFileSync(path.join(dir, 'config', 'docsync.json'), '{"service":{"clientId":"c"}}');
    writeFileSync(path.join(dir, 'config', 'docsync.env'), 'DOCSYNC_CLIENT_SECRET=s3\n');
    mkdirSync(path.join(dir, 'dist'));
    writeFileSync(path.join(dir, 'dist', 'removed-module.js'), 'export {};\n');
    cpSync(path.join(ROOT, 'test', 'unit'), path.join(dir, 'test', 'unit'), { recursive: true });

    const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json'], {
      cwd: dir,
      timeout: 120_000,
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
    expect(files).not.toContain('dist/removed-module.js');
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
  }, 120_000);
});
