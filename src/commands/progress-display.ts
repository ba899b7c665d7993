/**
 * `run --once`'s progress at a terminal: one line, redrawn a few times a second, with entities,
 * documents, bytes, rate, elapsed time and ETA. cli-progress draws it (cursor, clearing, redraw
 * rate); the line itself is `progressLine`, from the engine's counts. Lines printed meanwhile
 * (the log, a signal's notice) go through `print`, which puts them above the bar.
 */
import cliProgress from 'cli-progress';
import type { CycleProgress } from '../engine/cycle-tally.js';
import { formatBytes } from './once-summary.js';

/** What the display writes on: a terminal (stderr), or a stand-in with `isTTY` in tests. */
export type TerminalStream = NodeJS.WritableStream & {
  readonly isTTY?: boolean;
  readonly columns?: number;
};

const NOTHING_YET: CycleProgress = {
  entitiesDone: 0,
  entitiesTotal: 0,
  documentsPlanned: 0,
  documentsDone: 0,
  counts: { pulled: 0, pushed: 0, deleted: 0, conflicts: 0, bytesPulled: 0, bytesPushed: 0 },
};

/** The bar's width at most; it gives way first on a narrow terminal. */
const BAR_WIDTH = 20;

export class ProgressDisplay {
  readonly #bars: cliProgress.MultiBar;
  readonly #startedAt: number;
  #latest = NOTHING_YET;
  #stopped = false;

  constructor(
    private readonly stream: TerminalStream,
    private readonly now: () => number = Date.now,
  ) {
    this.#startedAt = now();
    this.#bars = new cliProgress.MultiBar({
      stream,
      hideCursor: true,
      // Off (the default), cli-progress turns the terminal's line wrapping off while it draws,
      // and every log line printed above the bar was cut at the terminal's width. The bar
      // itself stays within the width (progressLine), so it never wraps.
      linewrap: true,
      fps: 5,
      // Elapsed time and ETA move even while no document finishes.
      forceRedraw: true,
      format: () =>
        progressLine(this.#latest, this.now() - this.#startedAt, this.stream.columns ?? 100),
    });
    this.#bars.create(1, 0);
  }

  update(progress: CycleProgress): void {
    this.#latest = progress;
  }

  /** A whole line (or several) printed above the bar, at the next redraw. */
  print(text: string): void {
    const line = text.endsWith('\n') ? text : `${text}\n`;
    if (this.#stopped) this.stream.write(line);
    else this.#bars.log(line);
  }

  /** Draws the last state, prints what is still waiting, and leaves the line on the screen. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    // MultiBar prints waiting lines only when it redraws, and `stop` does not.
    this.#bars.update();
    this.#bars.stop();
  }
}

/**
 * "[██████░░░░] 52/208 entities · 310/400 documents · 12.4 MB · 1.2 MB/s · 0:42 · ETA 1:53".
 * The ETA is the time per entity so far times the entities left: entities are what the run
 * knows the number of from the start (documents are counted as each entity is planned).
 */
export function progressLine(p: CycleProgress, elapsedMs: number, columns = 100): string {
  const bytes = p.counts.bytesPulled + p.counts.bytesPushed;
  const rate = elapsedMs > 0 ? (bytes * 1000) / elapsedMs : 0;
  const eta =
    p.entitiesDone > 0 && p.entitiesTotal > p.entitiesDone
      ? clock((elapsedMs * (p.entitiesTotal - p.entitiesDone)) / p.entitiesDone)
      : p.entitiesTotal > 0 && p.entitiesDone === p.entitiesTotal
        ? '0:00'
        : '--:--';
  const text = [
    `${p.entitiesDone}/${p.entitiesTotal} entities`,
    `${p.documentsDone}/${p.documentsPlanned} documents`,
    formatBytes(bytes),
    `${formatBytes(Math.round(rate))}/s`,
    `${clock(elapsedMs)} elapsed`,
    `ETA ${eta}`,
  ].join(' · ');
  // The last column stays free: writing into it makes some terminals wrap.
  const width = Math.min(BAR_WIDTH, columns - 1 - text.length - 3);
  if (width < 5) return text;
  const fraction = p.entitiesTotal > 0 ? p.entitiesDone / p.entitiesTotal : 0;
  const filled = Math.round(fraction * width);
  return `[${'█'.repeat(filled)}${'░'.repeat(width - filled)}] ${text}`;
}

/** "0:42", "12:05", "1:02:03". */
function clock(ms: number): string {
  const s = Math.round(ms / 1000);
  const two = (n: number) => String(n).padStart(2, '0');
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h}:${two(m)}:${two(s % 60)}` : `${m}:${two(s % 60)}`;
}
