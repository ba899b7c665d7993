/**
 * No stack trace reaches a user: an error docsync has no sentence for (a bug, injected here into
 * `docsync open`) is one line, and `--debug` (before or after the command's name) prints where
 * it happened; `docsync simulator` on a port another program holds says so in one sentence
 * naming the port, and exits 1 as every command that cannot start does (commands.md).
 */
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runCli } from '../helpers/run-cli.js';

vi.mock('../../src/commands/open-command.js', () => ({
  openCommand: () => {
    const record: { entity?: { id: string } } = {};
    // A fault as one looks in the wild: a property read on what is not there.
    return record.entity!.id;
  },
}));

const STACK_LINE = /^\s+at /m;

describe('an error docsync did not expect', () => {
  it('is one line without a stack trace, naming what it said and how to see more', async () => {
    const { code, stderr } = await runCli(['open', 'company', '42']);

    expect(code).toBe(1);
    expect(stderr).not.toMatch(STACK_LINE);
    expect(stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(
        /^docsync: unexpected error \(a fault in docsync, worth a report\): Cannot read properties of undefined \(reading 'id'\); run the command again with --debug to print where it happened$/,
      ),
    ]);
  });

  it.each([
    ['before the command', ['--debug', 'open', 'company', '42']],
    ['after it', ['open', 'company', '42', '--debug']],
  ])('with --debug %s, prints its stack trace', async (_where, args) => {
    const { code, stderr } = await runCli(args);

    expect(code).toBe(1);
    expect(stderr).toMatch(/^docsync: unexpected error .*Cannot read properties of undefined/);
    expect(stderr).toMatch(STACK_LINE);
    expect(stderr).toMatch(/^\s+at .*openCommand /m);
  });
});

describe('docsync simulator on a port in use', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(
      servers.splice(0).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))),
    );
  });

  /** A port another program listens on. */
  const takenPort = () =>
    new Promise<number>((resolve, reject) => {
      const server = createServer();
      servers.push(server);
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
    });

  it.each([
    ['--port', (port: number) => ['--port', String(port)]],
    ['--link-port', (port: number) => ['--port', '0', '--link-port', String(port)]],
  ])('%s: one sentence naming the port and the option, exit 1', async (flag, args) => {
    const port = await takenPort();

    const { code, stdout, stderr } = await runCli(['simulator', ...args(port)]);

    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).not.toMatch(STACK_LINE);
    expect(stderr.trimEnd().split('\n')).toEqual([
      `docsync: ${flag}: 127.0.0.1:${port} is already in use by another program (EADDRINUSE: address already in use 127.0.0.1:${port}); stop that program (another docsync on the same port?) or set ${flag} to a free port, then run docsync again.`,
    ]);
  });
});
