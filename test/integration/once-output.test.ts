/**
 * What `docsync run --once` tells a person and a script, through the built CLI: log lines that
 * say what happened in words (names first, then the direction, then the file; the ids as
 * fields), a summary with the duration and each count, and with `--json` one object on stdout
 * and nothing else there, with the exit code unchanged.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeCliConfig } from '../helpers/cli-config.js';
import { CLI } from '../helpers/run-cli.js';
import { type SyncHarness, useSyncHarness } from '../helpers/sync-harness.js';
import { screen } from '../helpers/terminal-screen.js';

const start = useSyncHarness();

/** Acme Pty Ltd with the 2024-06-30 Minutes, synced once, as a firm's first run leaves it. */
async function acme() {
  const h = await start({ seed: null, settings: { maxDeletePercent: 100 } });
  const company = h.sim.admin.createCompany({ name: 'Acme Pty Ltd' });
  const owner = { kind: 'company' as const, id: String(company.id) };
  const minutes = h.sim.admin.createDocument({
    owner,
    name: 'Minutes',
    documentDate: '2024-06-30',
  });
  const letter = h.sim.admin.createDocument({ owner, name: 'Letter', documentDate: '2024-07-01' });
  const spare = h.sim.admin.createDocument({ owner, name: 'Spare', documentDate: '2024-07-02' });
  expect((await h.sync()).result).toBe('ok');
  return {
    h,
    owner,
    minutes: String(minutes.id),
    letter: String(letter.id),
    spare: String(spare.id),
  };
}

/**
 * `docsync run --once` on a pseudo-terminal (util-linux `script`, as on any Debian), 120
 * columns wide: what a person at the terminal sees.
 */
function onceAtTerminal(h: SyncHarness): Promise<{ code: number | null; output: string }> {
  const dir = path.dirname(path.dirname(h.stateFile));
  const config = writeCliConfig(dir, h.sim, {
    settleSeconds: 0,
    queue: { requestsPerSecond: 1000, concurrency: 4 },
    safety: { maxDeletePercent: 100 },
    log: { level: 'info' },
  });
  const command = `stty cols 120 rows 40; exec "${process.execPath}" "${CLI}" run --once --config "${config}"`;
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      env: { ...process.env, DOCSYNC_REFRESH_TOKEN: h.sim.admin.mintRefreshToken() },
      stdio: ['ignore', 'pipe', 'inherit'],
      timeout: 60_000,
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** The JSON log lines of a run (stdout without --json). */
function logLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('docsync run --once output', () => {
  it('logs each change as a sentence, names first, and ends with a summary of the counts', async () => {
    const { h, owner, minutes, letter, spare } = await acme();
    h.sim.admin.addAttachment(minutes, { name: 'minutes.pdf', bytes: 'the minutes, signed' });
    h.write(`${h.documentFolder(letter)!}/reply.pdf`, 'our reply');
    h.sim.admin.deleteDocument(spare);

    const run = await h.cli(['run', '--once'], { log: { level: 'info' } });

    expect(run.code).toBe(0);
    const lines = logLines(run.stdout);
    const pulled = lines.find(
      (l) => l.msg === 'Acme Pty Ltd / 2024-06-30 Minutes: pulled minutes.pdf',
    );
    expect(pulled).toMatchObject({
      owner: `company:${owner.id}`,
      document: minutes,
      action: 'pull-attachment',
      file: 'minutes.pdf',
    });
    expect(lines.map((l) => l.msg)).toEqual(
      expect.arrayContaining([
        'Acme Pty Ltd / 2024-07-01 Letter: pushed reply.pdf',
        'Acme Pty Ltd / 2024-07-02 Spare: moved the folder to .docsync/trash (deleted in the service)',
        'Acme Pty Ltd: pull 1 file; push 1 file; delete 1 document locally',
      ]),
    );
    // The summary, in the log (a timer's run keeps stderr quiet; at a terminal it is printed).
    const finished = lines.find((l) => String(l.msg).startsWith('run finished'));
    expect(finished?.msg).toMatch(
      /^run finished: in sync after \d+(\.\d)? s: pulled 1, pushed 1, deleted 1, conflicts 0, errors 0$/,
    );
    expect(finished?.report).toMatchObject({ bytesPulled: 19, bytesPushed: 9, exitCode: 0 });
    expect(run.stderr).toBe('');
  });

  it('at a terminal draws the progress line, prints the log above it and ends with the summary', async () => {
    const { h, minutes, letter } = await acme();
    h.sim.admin.addAttachment(minutes, { name: 'minutes.pdf', bytes: 'the minutes, signed' });
    h.write(`${h.documentFolder(letter)!}/reply.pdf`, 'our reply');

    const run = await onceAtTerminal(h);

    expect(run.code).toBe(0);
    const lines = screen(run.output);
    // Each log line on a line of its own: nothing glued onto the progress line.
    const pulled = lines.find((l) => l.includes('pulled minutes.pdf'));
    expect(pulled).toMatch(
      /^\[[\d:.]+\] INFO: Acme Pty Ltd \/ 2024-06-30 Minutes: pulled minutes.pdf /,
    );
    const progress = lines.filter((l) => l.includes('entities ·'));
    expect(progress).toHaveLength(1);
    expect(progress[0]).toMatch(
      /^\[█+\] 1\/1 entities · 2\/2 documents · 28 B · \d+ B\/s · 0:0\d elapsed · ETA 0:00$/,
    );
    const summary = lines.slice(lines.findIndex((l) => l.startsWith('docsync: in sync after')));
    expect(summary[0]).toMatch(/^docsync: in sync after \d+(\.\d)? s \(1 entity\)$/);
    expect(summary.slice(1)).toEqual([
      '  pulled    1   19 B',
      '  pushed    1   9 B',
      '  deleted   0',
      '  conflicts 0',
      '  errors    0',
    ]);
  });

  it('with --json prints one summary object on stdout, the log elsewhere', async () => {
    const { h, minutes } = await acme();
    h.sim.admin.addAttachment(minutes, { name: 'minutes.pdf', bytes: 'the minutes, signed' });

    const run = await h.cli(['run', '--once', '--json'], { log: { level: 'info' } });

    expect(run.code).toBe(0);
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
    const summary = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(summary).toMatchObject({
      result: 'ok',
      exitCode: 0,
      entities: 1,
      pulled: 1,
      pushed: 0,
      deleted: 0,
      conflicts: 0,
      errors: 0,
      bytesPulled: 19,
      rails: [],
    });
    expect(summary.durationMs).toEqual(expect.any(Number));
    // The log went to stderr.
    expect(run.stderr).toContain('pulled minutes.pdf');
  });

  it('with --json keeps the exit code of a rail that tripped, and says which', async () => {
    const { h } = await acme();
    h.remove('.docsync-root');

    const run = await h.cli(['run', '--once', '--json']);

    expect(run.code).toBe(2);
    const summary = JSON.parse(run.stdout) as {
      result: string;
      exitCode: number;
      rails: unknown[];
    };
    expect(summary).toMatchObject({ result: 'safety-stop', exitCode: 2 });
    expect(summary.rails).toEqual([
      expect.objectContaining({ message: expect.stringContaining('.docsync-root') }),
    ]);
    expect(run.stderr).toContain('safety rail');
  });
});
