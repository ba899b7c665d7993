/**
 * What `docsync run --once` tells a person and a script, through the built CLI: log lines that
 * say what happened in words (names first, then the direction, then the file; the ids as
 * fields), a summary with the duration and each count, and with `--json` one object on stdout
 * and nothing else there, with the exit code unchanged.
 */
import { describe, expect, it } from 'vitest';
import { useSyncHarness } from '../helpers/sync-harness.js';

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
    // The summary: the duration, then each count on its line.
    expect(run.stderr).toMatch(/^docsync: in sync after \d+(\.\d)? s \(1 entity\)$/m);
    expect(run.stderr).toMatch(/^ {2}pulled +1 {3}19 B$/m);
    expect(run.stderr).toMatch(/^ {2}pushed +1 {3}9 B$/m);
    expect(run.stderr).toMatch(/^ {2}deleted +1$/m);
    expect(run.stderr).toMatch(/^ {2}conflicts +0$/m);
    expect(run.stderr).toMatch(/^ {2}errors +0$/m);
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
    // The log went to stderr, the human summary nowhere.
    expect(run.stderr).toContain('pulled minutes.pdf');
    expect(run.stderr).not.toMatch(/^ {2}pulled/m);
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
