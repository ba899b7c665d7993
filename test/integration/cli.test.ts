import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { advisedCommand, runCli } from '../helpers/run-cli.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();

describe('docsync command line', () => {
  it('lists every command of daemon.md in its help', async () => {
    const { code, stdout } = await runCli(['--help']);
    expect(code).toBe(0);
    for (const command of ['run', 'status', 'auth', 'api', 'open', 'simulator', 'demo']) {
      expect(stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    }
    expect(stdout).toContain('--once');
    expect(stdout).toContain('--config <file>');
  });

  it('exits 1 with every configuration problem listed when the file is bad', async () => {
    const file = path.join(tempDir(), 'docsync.json');
    writeFileSync(
      file,
      JSON.stringify({ service: { baseUrl: 'nope' }, queue: { concurrency: 0 } }),
    );
    const { code, stderr } = await runCli(['run', '--once', '--config', file]);
    expect(code).toBe(1);
    expect(stderr).toContain(`Invalid configuration (${file})`);
    expect(stderr).toContain('service.baseUrl: expected an http(s) URL, got "nope"');
    expect(stderr).toContain('service.clientId: required');
    expect(stderr).toContain('queue.concurrency: expected an integer from 1 and up, got 0');
    expect(stderr).toContain('store: required');
  });

  it('finds its configuration through DOCSYNC_CONFIG', async () => {
    const { code, stderr } = await runCli(['status'], {
      env: { DOCSYNC_CONFIG: '/nonexistent/docsync.json' },
    });
    expect(code).toBe(1);
    // init as it runs here (it takes the file it writes as its own --config).
    const init = advisedCommand(
      '/nonexistent/docsync.json',
      'init --config /nonexistent/docsync.json',
    );
    expect(stderr).toContain(
      `docsync: the configuration file /nonexistent/docsync.json does not exist; write one there with \`${init}\``,
    );
  });

  it('rejects an unknown command with a pointer to the help', async () => {
    const { code, stderr } = await runCli(['frobnicate']);
    expect(code).toBe(1);
    expect(stderr).toContain("unknown command 'frobnicate'");
  });
});
