/**
 * `run --once`'s progress display, drawn on a stand-in terminal (a stream that says it is a TTY)
 * and read back as the screen a person would see: the progress line with its numbers, and the
 * log lines printed meanwhile each on a line of their own, never glued onto the bar.
 */
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { formatBytes, formatDuration, summaryText } from '../../src/commands/once-summary.js';
import { ProgressDisplay, progressLine } from '../../src/commands/progress-display.js';
import { cycleReport } from '../../src/engine/cycle-report.js';
import type { CycleProgress } from '../../src/engine/cycle-tally.js';
import { createLogger } from '../../src/log/create-logger.js';
import { LogRelay } from '../../src/log/log-relay.js';
import { screen } from '../helpers/terminal-screen.js';

/** A terminal of `columns` that records what is written to it. */
function fakeTerminal(columns = 120) {
  let written = '';
  const stream = Object.assign(
    new Writable({
      write(chunk, _encoding, done) {
        written += String(chunk);
        done();
      },
    }),
    { isTTY: true, columns },
  );
  return { stream, output: () => written };
}

const progress = (p: Partial<CycleProgress> = {}): CycleProgress => ({
  entitiesDone: 52,
  entitiesTotal: 208,
  documentsPlanned: 400,
  documentsDone: 310,
  counts: {
    pulled: 300,
    pushed: 10,
    deleted: 0,
    conflicts: 0,
    bytesPulled: 12_000_000,
    bytesPushed: 400_000,
  },
  ...p,
});

describe('the progress line', () => {
  it('shows entities, documents, bytes, rate, elapsed time and ETA', () => {
    // 52 of 208 entities in 42 s: 156 left at 0.81 s each.
    expect(progressLine(progress(), 42_000, 200)).toBe(
      '[█████░░░░░░░░░░░░░░░] 52/208 entities · 310/400 documents · 12.4 MB · 295.2 kB/s · 0:42 elapsed · ETA 2:06',
    );
  });

  it('has no ETA before the first entity is done, and gives up the bar on a narrow terminal', () => {
    const line = progressLine(progress({ entitiesDone: 0 }), 3_000, 80);
    expect(line).toBe(
      '0/208 entities · 310/400 documents · 12.4 MB · 4.1 MB/s · 0:03 elapsed · ETA --:--',
    );
  });
});

describe('ProgressDisplay', () => {
  it('prints log lines above the bar, each on its own line, and leaves the last state', async () => {
    const terminal = fakeTerminal(140);
    let now = 1_000_000;
    const display = new ProgressDisplay(terminal.stream, () => now);

    display.update(progress({ entitiesDone: 10 }));
    display.print('[12:00:01] INFO: Acme Pty Ltd / 2024-06-30 Minutes: pulled minutes.pdf\n');
    await sleep(450); // two redraws at 5 per second
    display.print('docsync: SIGINT: finishing the documents in flight');
    now += 42_000;
    display.update(progress());
    display.stop();

    expect(screen(terminal.output())).toEqual([
      '[12:00:01] INFO: Acme Pty Ltd / 2024-06-30 Minutes: pulled minutes.pdf',
      'docsync: SIGINT: finishing the documents in flight',
      progressLine(progress(), 42_000, 140),
    ]);
  });

  it('takes the log through a relay while it draws, readable, and gives it back after', async () => {
    const terminal = fakeTerminal(160);
    const relay = new LogRelay(terminal.stream, { pretty: true });
    const logger = createLogger({ level: 'info', destination: relay, pretty: false });
    const display = new ProgressDisplay(terminal.stream, () => 0);
    const restore = relay.divert((text) => display.print(text));

    logger.info(
      { owner: 'company:42', file: 'minutes.pdf' },
      'Acme Pty Ltd / Minutes: pulled minutes.pdf',
    );
    await sleep(250);
    display.stop();
    restore();
    logger.info('run finished');

    const lines = screen(terminal.output());
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(
      /^\[[\d:.]+\] INFO: Acme Pty Ltd \/ Minutes: pulled minutes.pdf {"owner":"company:42","file":"minutes.pdf"}$/,
    );
    expect(lines[1]).toContain('0/0 entities');
    expect(lines[2]).toMatch(/INFO: run finished$/);
  });

  it('prints straight on the terminal once stopped', () => {
    const terminal = fakeTerminal();
    const display = new ProgressDisplay(terminal.stream, () => 0);
    display.stop();
    display.print('docsync: safety rail: too many deletes');
    expect(screen(terminal.output()).at(-1)).toBe('docsync: safety rail: too many deletes');
  });
});

describe('the summary', () => {
  it('gives the duration and each count, with the bytes moved', () => {
    const report = cycleReport({
      entities: 208,
      failed: 2,
      counts: {
        pulled: 37,
        pushed: 3,
        deleted: 2,
        conflicts: 1,
        bytesPulled: 12_400_000,
        bytesPushed: 1_200,
      },
    });
    expect(summaryText(report, 72_000)).toBe(
      [
        'docsync: finished with items in error after 1 min 12 s (208 entities, exit 3)',
        '  pulled    37   12.4 MB',
        '  pushed     3   1.2 kB',
        '  deleted    2',
        '  conflicts  1',
        '  errors     2',
        '',
      ].join('\n'),
    );
  });

  it.each([
    [840, '840 B'],
    [1_500, '1.5 kB'],
    [12_400_000, '12.4 MB'],
  ])('writes %d bytes as %s', (bytes, text) => expect(formatBytes(bytes)).toBe(text));

  it.each([
    [400, '0.4 s'],
    [42_000, '42 s'],
    [72_000, '1 min 12 s'],
    [7_500_000, '2 h 5 min'],
  ])('writes %d ms as %s', (ms, text) => expect(formatDuration(ms)).toBe(text));
});
