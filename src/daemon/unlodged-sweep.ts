/**
 * The firm-wide hint: the daemon reads the firm's unlodged list (`GET
 * /cas/companies/documents/unlodged`, 500 documents a request) over and over, one page at a
 * time, spaced so that it takes at most `schedule.unlodgedSweepShare` of the rate, and has the
 * scheduler list at once every company the list shows a change in (domain/unlodged-hints.ts
 * says which). Without webhooks, a round over a large firm takes many minutes; a sweep of its
 * unlodged list takes seconds.
 *
 * A sweep starts at most every `schedule.unlodgedSweepSeconds` (30 s), whatever the firm's size:
 * a small firm's list is one page, which the share alone would read every 2 s, day and night.
 * A list long enough that its sweep takes that long at the share's pace (15 pages at the
 * defaults) is read as before, a page per interval without a pause.
 *
 * Its requests take the poll lane, behind pushes, webhooks and the watcher. Until the first
 * sync is done every document is new to the agreed state, so the sweep waits for it.
 */
import { type Clock, waitOn } from '../domain/clock.js';
import { ownerKey } from '../domain/owner-key.js';
import type { OwnerRef } from '../domain/types.js';
import { hintLine, hintSummary, type SentHint } from '../domain/unlodged-hint-lines.js';
import {
  type AgreedDocument,
  type HintedStatuses,
  judgePage,
  judgeSweep,
  nextOffset,
  sightingOf,
  type UnlodgedHint,
  type UnlodgedPage,
} from '../domain/unlodged-hints.js';
import type { Logger } from '../log/create-logger.js';
import { ApiError } from '../remote/api-error.js';

export interface UnlodgedSweepDeps {
  /** One page of the firm's unlodged list from `offset` (the client's `unlodgedPage`). */
  readonly page: (offset: number) => Promise<UnlodgedPage>;
  /** What the agreed state holds of these documents (those it holds are in the map). */
  readonly agreed: (documentIds: readonly string[]) => ReadonlyMap<string, AgreedDocument>;
  /** The company a list item names, as the catalogue knows it; null when it does not. */
  readonly company: (companyId: string) => OwnerRef | null;
  /** Whether sweeping makes sense yet: the first sync is done. */
  readonly ready: () => boolean;
  /** List this entity now (whole: a document left the list). */
  readonly hint: (owner: OwnerRef, whole: boolean) => void;
  /** The time between two requests: `sweepIntervalMs`. */
  readonly intervalMs: number;
  /** The least time from one sweep's first request to the next's (`unlodgedSweepSeconds`). */
  readonly sweepEveryMs: number;
  /** What the sweep waits on: the daemon's is `MONOTONIC_CLOCK`, a test's is virtual. */
  readonly clock: Clock;
  readonly logger: Logger;
  /** A failure that is not the service's (the state could not be read). */
  readonly onError: (error: unknown) => void;
}

/**
 * The time between two of the sweep's requests, so that it takes `share` of `requestsPerSecond`
 * and polling the rest of its share; null for a share of 0, which turns the sweep off.
 */
export function sweepIntervalMs(share: number, requestsPerSecond: number): number | null {
  return share > 0 ? 1000 / (share * requestsPerSecond) : null;
}

/** A route the service does not have (or will not let docsync read) is asked again this late. */
const REFUSED_PAUSE_MS = 60 * 60_000;

export class UnlodgedSweep {
  readonly #stop = new AbortController();
  #running: Promise<void> | undefined;
  #hinted: HintedStatuses = new Map();
  /** The last whole sweep: each document seen, by its company; null before the first. */
  #previous: ReadonlyMap<string, string> | null = null;
  #failing = false;
  /** What the sweeps did, for the log and tests: requests, whole sweeps, hints. */
  readonly stats = { requests: 0, sweeps: 0, hints: 0 };

  constructor(private readonly deps: UnlodgedSweepDeps) {}

  start(): void {
    this.#running ??= this.#loop().catch((error: unknown) => {
      if (!this.#stop.signal.aborted) this.deps.onError(error);
    });
  }

  /**
   * Takes no page more. A page in flight is not waited for: its answer is dropped, and nothing
   * reads the state after this returns.
   */
  close(): void {
    this.#stop.abort();
  }

  async #loop(): Promise<void> {
    const { deps } = this;
    let offset = 0;
    let seen: Map<string, string> | null = new Map();
    let lastAt = Number.NEGATIVE_INFINITY;
    let sweepAt = Number.NEGATIVE_INFINITY;
    for (;;) {
      const pageDue = lastAt + deps.intervalMs;
      await this.#wait(
        Math.max(pageDue, offset === 0 ? sweepAt + deps.sweepEveryMs : pageDue) - deps.clock.now(),
      );
      lastAt = deps.clock.now();
      if (!this.#judging(() => deps.ready())) continue;
      if (offset === 0) sweepAt = lastAt;
      this.stats.requests++;
      let page: UnlodgedPage;
      try {
        page = await deps.page(offset);
      } catch (error) {
        if (this.#stop.signal.aborted) return;
        await this.#failed(error);
        offset = 0;
        seen = new Map(); // rule 5: a sweep cut short judges nothing missing
        this.#previous = null;
        continue;
      }
      if (this.#stop.signal.aborted) return;
      this.#recovered();
      if (page.malformed > 0) seen = null;
      for (const doc of page.documents) seen?.set(doc.id, doc.owner.id);
      const next = nextOffset(offset, page);
      const last = seen;
      this.#judging(() => {
        this.#judgePage(page);
        if (next === null) this.#endSweep(last);
        return true;
      });
      offset = next ?? 0;
      if (next === null) seen = new Map();
    }
  }

  /** Runs a step that reads the state; a failure goes to the daemon (a state failure stops it). */
  #judging(step: () => boolean): boolean {
    try {
      return step();
    } catch (error) {
      this.deps.onError(error);
      return false;
    }
  }

  #judgePage(page: UnlodgedPage): void {
    const sightings = page.documents.map(sightingOf);
    const agreed = this.deps.agreed(sightings.map((s) => s.documentId));
    const judged = judgePage(sightings, agreed, this.#hinted);
    this.#hinted = judged.hinted;
    this.#send(judged.hints);
  }

  #endSweep(seen: ReadonlyMap<string, string> | null): void {
    const previous = this.#previous;
    const agreed = previous ? this.deps.agreed([...previous.keys()]) : new Map();
    const judged = judgeSweep(previous, seen, agreed, this.#hinted);
    this.#hinted = judged.hinted;
    this.#send(judged.hints);
    this.#previous = seen;
    if (seen) this.stats.sweeps++;
    this.deps.logger.debug(
      { documents: seen?.size ?? null, ...this.stats },
      'unlodged sweep: the firm-wide list read to its end',
    );
  }

  /**
   * Has the scheduler list each hinted company. What one page (or the end of a sweep) found is
   * said in one line: after a restart, or a day of changes while docsync was down, a page holds
   * hundreds of documents the state lacks, and a line for each buried the log. Each document's
   * own line is at debug.
   */
  #send(hints: readonly UnlodgedHint[]): void {
    const sent: SentHint[] = [];
    for (const hint of hints) {
      const owner = hint.owner ?? this.deps.company(hint.companyId);
      // A company the catalogue does not hold has no folder to bring the change to; the full
      // round's catalogue read finds it.
      if (!owner) continue;
      sent.push({ hint, owner });
      this.stats.hints++;
      this.deps.hint(owner, hint.whole);
    }
    const { logger } = this.deps;
    for (const { hint, owner } of sent) {
      const fields = { owner: ownerKey(owner), documentId: hint.documentId, rule: hint.rule };
      if (sent.length === 1) logger.info(fields, hintLine(hint, owner));
      else logger.debug(fields, hintLine(hint, owner));
    }
    if (sent.length > 1) {
      const summary = hintSummary(sent);
      logger.info(summary.fields, summary.line);
    }
  }

  /** A page could not be read: the service's refusal pauses the sweep, anything else is said once. */
  async #failed(error: unknown): Promise<void> {
    const refused =
      error instanceof ApiError &&
      error.code === 'HTTP_ERROR' &&
      [400, 403, 404, 405, 501].includes(error.status ?? 0);
    if (refused) {
      this.deps.logger.warn(
        { err: error, route: error.route },
        `the firm's unlodged list cannot be read (${error.status}): changes without a webhook wait for the poll round; ` +
          'asked again in an hour. service.routes.unlodgedOfFirm corrects its path; ' +
          'schedule.unlodgedSweepShare 0 turns the sweep off',
      );
      this.#failing = true;
      await this.#wait(REFUSED_PAUSE_MS);
      return;
    }
    // Said once until a page is read again: an outage must not write a line every second.
    if (!this.#failing) {
      this.deps.logger.warn(
        { err: error },
        "reading the firm's unlodged list failed; the sweep starts again at its next request",
      );
    }
    this.#failing = true;
  }

  #recovered(): void {
    if (this.#failing) this.deps.logger.info("the firm's unlodged list is read again");
    this.#failing = false;
  }

  /** Waits, or throws AbortError when closed (which ends the loop). */
  async #wait(ms: number): Promise<void> {
    if (this.#stop.signal.aborted) throw new Error('stopped');
    // The sweep never keeps the daemon alive by itself.
    if (ms > 0)
      await waitOn(this.deps.clock, ms, this.#stop.signal, () => new Error('stopped'), false);
  }
}
