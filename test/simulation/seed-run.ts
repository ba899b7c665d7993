/**
 * One seed of the simulation (docs/simulation.md): a world (sim-world.ts) on a virtual clock,
 * and everything the seed may do to it, one step at a time (release a parked sync, let time
 * pass, edit either side, send a webhook, decide as an operator, break the service, crash the
 * daemon), each step followed by `settle`, so nothing else runs until the next. The random driver
 * (random-steps.ts) and the scripted scenarios (regressions.ts) both drive a seed through these
 * steps; `finish` then brings the world to rest and judges it (sim-invariants.ts).
 *
 * Every choice comes from the seed's generator, in an order the steps fix, so a seed replays
 * exactly: `trace` is the same line for line (a test says so).
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { OwnerRef, RemoteAttachment, RemoteDocument } from '../../src/domain/types.js';
import type { LockViolation } from '../../src/engine/entity-locks.js';
import type { Failpoint, FailpointSite } from '../../src/engine/failpoints.js';
import type { DecisionRequest } from '../../src/operator/decisions.js';
import type { FaultOptions, GeneratedSeed } from '../../src/simulator/index.js';
import { pick, type Random, seededRandom } from '../../src/simulator/random.js';
import { longestCronGapMs } from '../../src/web/health.js';
import { AwayBook } from '../chaos/away-book.js';
import type { ChaosWorld } from '../chaos/local-edits.js';
import type { SyncHarness } from '../helpers/sync-harness.js';
import { brokenFolders, copiedFolders } from './away-steps.js';
import { convergenceFindings, type RoundsPicture, roundsPicture } from './convergence.js';
import { CoverageCounter, type SeedCoverage } from './coverage.js';
import { DiskFaults, isDiskFault } from './disk-faults.js';
import { noteDecisions } from './operator-steps.js';
import { CrashedError, type Parked } from './park-board.js';
import type { ServiceWrite } from './port-wrappers.js';
import { type RailLimits, RailWatch, railFindings } from './rail-watch.js';
import { RETRY_AS_PROMISED, retriesOffPromise } from './retry-watch.js';
import { rateLimitFindings, ServiceBook, serviceWorldFindings } from './service-world.js';
import { fileKey } from './sim-book.js';
import {
  finalFindings,
  observe,
  QUIET,
  TRASH_COPY,
  trashShas,
  WENT_THROUGH,
  webhookFindings,
} from './sim-invariants.js';
import {
  type Finding,
  HELD_AS_PROMISED,
  NO_UNHANDLED,
  NOTHING_AFTER_SIGTERM,
  SimLedger,
  TWO_SYNCS,
  type UploadNaming,
} from './sim-ledger.js';
import { simView } from './sim-view.js';
import { type QueuedWebhook, WebhookQueue } from './sim-webhooks.js';
import { type Life, ownerKeyOf, SimWorld, type WorldHarness } from './sim-world.js';
import { LOCAL_TRASH_COPY, watchRemoval } from './trash-watch.js';
import { VirtualClock } from './virtual-clock.js';

export interface SeedPlan {
  readonly firm: GeneratedSeed;
  /** The rails; the random runs raise them (a few random deletes pass 50 % of an entity). */
  readonly safety?: { readonly maxDeletePercent: number; readonly maxDeleteCount: number };
  /** Steps that change the world: edits, decisions, faults, crashes. */
  readonly injections: number;
  /** Steps in all before the world is brought to rest, whatever is left. */
  readonly maxSteps: number;
  /** `queue.concurrency` (1 unless told). */
  readonly concurrency?: number;
  /** `safety.deleteHoldSeconds` (60 unless told). */
  readonly deleteHoldSeconds?: number;
  /** Each seed draws its own concurrency, rails and hold (seed-settings.ts). */
  readonly drawSettings?: boolean;
}

export const RANDOM_PLAN: SeedPlan = {
  firm: { companies: 2, trusts: 1, documentsPerEntity: 2, attachmentsPerDocument: 2 },
  safety: { maxDeletePercent: 100, maxDeleteCount: 1000 },
  injections: 10,
  maxSteps: 250,
  drawSettings: true,
};

export interface SeedOutcome {
  readonly seed: number;
  readonly trace: readonly string[];
  readonly findings: readonly Finding[];
  /** What the seed injected, by kind. */
  readonly injected: Readonly<Record<string, number>>;
  readonly steps: number;
  /** The daemon's last warnings and errors. */
  readonly log: readonly string[];
  /** The failpoints and decision-table rows it reached (coverage.ts). */
  readonly coverage: SeedCoverage;
  /** The random driver's leanings, on or off, by name (seed-profile.ts). */
  readonly profile?: Readonly<Record<string, boolean>>;
}

/** Where a chain of work starts: it must park there, before its first request or file access. */
const CHAIN_STARTS: ReadonlySet<Failpoint> = new Set([
  'round-start',
  'catalogue-refresh',
  'cycle-start',
]);

/** How often the random driver stops a sync at the other failpoints. */
export const PARK_CHANCE: Readonly<Record<Failpoint, number>> = {
  'round-start': 1,
  'catalogue-refresh': 1,
  'cycle-start': 1,
  'entity-planned': 0.5,
  'before-local-write': 0.25,
  'between-upload-and-delete': 0.7,
  'service-copy-saved': 0.6,
  'before-commit': 0.25,
  'cycle-end': 0,
};

/** Rounds the world gets to come to rest once the seed stops changing it. */
const ROUNDS_TO_REST = 6;
/** Every backoff of an item in error has run out after this (`ITEM_BACKOFF`, domain/backoff.ts). */
const PAST_EVERY_BACKOFF_MS = 6 * 3_600_000 + 60_000;
/** How long a disk fault outlasts the seed's last step, at most (disk-faults.ts). */
const MENDED_AFTER_MS = 10 * 60_000;
/** A restarted daemon starts after the dead one's instance lock expired. */
const RESTART_AFTER_MS = 61_000;

export class SeedRun implements WorldHarness {
  readonly trace: string[] = [];
  readonly ledger = new SimLedger();
  /** What the seed did to the service's own world (service-world.ts). */
  readonly service = new ServiceBook();
  /** Decisions a command handed to the daemon, until their outcome is noted. */
  readonly decisionsHandedOver = new Map<number, DecisionRequest>();
  readonly webhooks: WebhookQueue;
  readonly random: Random;
  readonly coverage = new CoverageCounter();
  /** The document deletes the service carried out, for the rails' invariant (rail-watch.ts). */
  readonly rails = new RailWatch(() => this.ledger.nextSeq());
  /** Whether a sync parks at a failpoint that is not a chain's start (scenarios set their own). */
  parkAt: (step: Failpoint, site: FailpointSite) => boolean;
  /** Whether an answer of the service is held back (a late answer). */
  holdAt: (label: string) => boolean;
  /** Which of the port calls waiting for their turn goes next (port-turns.ts). */
  turnAt: (waiting: readonly string[]) => number;
  /** The folder's disk, failing as a seed turns its faults on (disk-faults.ts). */
  readonly disk: DiskFaults;
  /** Once at rest, before it is judged: a person decides one thing that waits; true if so. */
  lastLook: (() => Promise<boolean>) | null = null;
  steps = 0;
  readonly #injected = new Map<string, number>();
  #stopping = false;
  #statusNames = new Map<string, string>();
  world!: SimWorld;
  clock!: VirtualClock;
  view!: SyncHarness;
  chaos!: ChaosWorld;

  private constructor(
    readonly seed: number,
    readonly plan: SeedPlan,
  ) {
    this.random = seededRandom(seed);
    this.webhooks = new WebhookQueue(seed);
    this.parkAt = (step) => this.random() < PARK_CHANCE[step];
    this.holdAt = () => this.random() < 0.08;
    this.turnAt = (waiting) => {
      const index = Math.floor(this.random() * waiting.length);
      this.note(`  turn: ${waiting[index]} (of ${waiting.length} waiting)`);
      return index;
    };
    this.disk = new DiskFaults(
      this.random,
      (kind) => this.count(kind),
      (line) => this.note(line),
      (method, args) => this.#diskWorkDone(method, args),
    );
  }

  /**
   * The world made and the daemon started on an empty folder; its first round waits to go.
   * `setup` may change how the run chooses (`parkAt`, `holdAt`) before anything runs.
   */
  static async start(
    seed: number,
    plan: SeedPlan,
    setup?: (run: SeedRun) => void,
  ): Promise<SeedRun> {
    const run = new SeedRun(seed, plan);
    setup?.(run);
    process.on('unhandledRejection', run.#unheard);
    run.clock = new VirtualClock();
    run.note(worldLine(plan));
    try {
      run.world = await SimWorld.create(
        {
          firm: { ...plan.firm, seed },
          ...(plan.safety ? { safety: plan.safety } : {}),
          ...(plan.concurrency ? { concurrency: plan.concurrency } : {}),
          ...(plan.deleteHoldSeconds === undefined
            ? {}
            : { deleteHoldSeconds: plan.deleteHoldSeconds }),
        },
        run,
      );
      run.world.board.turns.choose = (waiting) => run.turnAt(waiting);
      await run.#prepare();
      await run.#startDaemon();
      await run.settle();
      return run;
    } catch (error) {
      await run.close();
      throw error;
    }
  }

  async #prepare(): Promise<void> {
    const { world } = this;
    this.view = simView({
      sim: world.sim,
      root: world.root,
      ledger: this.ledger,
      webhooks: this.webhooks,
      touched: (rel) => {
        if (world.running) world.life.watch.touch(path.join(world.root, ...rel.split('/')));
      },
    });
    const dump = await this.view.remote();
    this.#statusNames = new Map(dump.statusTypes.map((t) => [String(t.id), t.name]));
    // The world as the seed finds it: every document, its attachments, and its status (a status
    // typed to the same is no change to lose).
    this.ledger.book.startWorld(dump);
    for (const doc of dump.documents) this.ledger.statusEdit(doc.id, doc.status.type, 'remote');
    const keepers = new Set<string>();
    const seen = new Set<string>();
    for (const doc of dump.documents) {
      const key = ownerKeyOf(doc.owner);
      if (!seen.has(key)) keepers.add(doc.id);
      seen.add(key);
    }
    const root = world.root;
    const service = this.service;
    this.chaos = {
      h: this.view,
      random: this.random,
      ledger: this.ledger,
      seed: this.seed,
      keepers,
      statusNames: dump.statusTypes.map((t) => t.name),
      // An entity the service no longer has keeps its folder, which a person leaves alone here.
      get entityFolders() {
        return entityFoldersIn(root).filter((f) => !service.vanishedFolder(f));
      },
      away: new AwayBook(path.join(world.dir, 'away')),
    };
  }

  note(line: string): void {
    const entry = `${String(this.steps).padStart(3)} ${line}`;
    this.trace.push(entry);
    if (process.env.SIM_ECHO) process.stderr.write(`${entry}\n`);
  }

  count(kind: string): void {
    this.#injected.set(kind, (this.#injected.get(kind) ?? 0) + 1);
  }

  get injected(): Readonly<Record<string, number>> {
    return Object.fromEntries([...this.#injected].sort(([a], [b]) => a.localeCompare(b)));
  }

  // ---- what the world asks of the harness (WorldHarness) ----

  async failpoint(life: Life, step: Failpoint, site: FailpointSite): Promise<void> {
    this.coverage.reached(step, site);
    if (step === 'entity-planned' && site.owner) this.rails.planned(life.n, site.owner, life.state);
    if (step === 'cycle-start' && site.owners) this.webhooks.syncBegan(site.owners);
    if (step === 'cycle-end') {
      if (site.owners)
        this.webhooks.syncEnded(site.owners, WENT_THROUGH.has(site.result ?? 'error'), (id) =>
          eventDone(life, id),
        );
      for (const detail of retriesOffPromise(life.state.problems.list()))
        this.ledger.found(RETRY_AS_PROMISED, detail);
      return;
    }
    if (this.#stopping && (step === 'cycle-start' || step === 'round-start'))
      this.ledger.found(NOTHING_AFTER_SIGTERM, `${labelOf(step, site)} began after the signal`);
    const placing = newDocumentPlaced(step, site);
    if (placing) this.ledger.book.placed(placing, 'parked');
    if (CHAIN_STARTS.has(step) || this.parkAt(step, site)) {
      const label = labelOf(step, site);
      this.note(`  parked: ${label}`);
      this.coverage.parked(step);
      await this.world.board.park('failpoint', label, life.n, step, site);
      if (life.dead) throw new CrashedError();
    }
    const agreed =
      placing ?? (step === 'before-commit' && site.what === SETTLED ? site.documentId : null);
    if (agreed) this.ledger.book.placeCommitted(agreed);
  }

  /**
   * The daemon's own count of work on an entity without its lock (engine/entity-locks.ts): a
   * step of a sync made without the entity's lease, or a lease granted while another held it.
   */
  lockViolation(violation: LockViolation): void {
    const by = violation.holder ? `, held by the ${violation.holder}` : '';
    this.ledger.found(TWO_SYNCS, `${violation.step} on ${violation.owner} without its lock${by}`);
  }

  holdAnswer(label: string): boolean {
    const hold = this.holdAt(label);
    if (hold) this.note(`  answer held: ${label}`);
    return hold;
  }

  async beforeWrite(write: ServiceWrite): Promise<void> {
    if (write.kind !== 'delete-attachment' && write.kind !== 'delete-document') return;
    if (write.kind === 'delete-document') {
      this.#heldLongEnough(write.documentId);
      const life = this.world.life;
      this.rails.sending(life.n, write.owner, write.documentId, life.state);
    }
    const dump = await this.world.board.track('the trash copy checked', () =>
      this.world.sim.admin.dump(),
    );
    const doc = dump.documents.find((d) => d.id === write.documentId);
    if (!doc) return;
    const trash = trashShas(this.world.root);
    for (const a of doc.attachments) {
      if (write.kind === 'delete-attachment' && a.id !== write.attachmentId) continue;
      if (!trash.has(a.sha256))
        this.ledger.found(
          TRASH_COPY,
          `${write.kind} of ${doc.id}/${a.name} (${a.sha256.slice(0, 12)}) sent with no copy in the trash`,
        );
    }
  }

  /**
   * A document whose folder a person deleted is deleted in the service only once the folder has
   * been gone for `safety.deleteHoldSeconds` (docs/deletes.md): the hold counts from when docsync
   * first saw it gone, never before the person deleted it. A person's approval lets it go sooner.
   */
  #heldLongEnough(documentId: string): void {
    const hold = (this.plan.deleteHoldSeconds ?? 60) * 1000;
    const gone = this.ledger.book.folderDeletedTime.get(documentId);
    if (hold === 0 || gone === undefined || !this.world.running) return;
    const approved = this.world.life.state.heldDeletes
      .list()
      .some((h) => h.documentId === documentId && h.decision === 'approve');
    const after = Date.now() - gone;
    if (!approved && after < hold)
      this.ledger.found(
        HELD_AS_PROMISED,
        `document ${documentId}'s delete sent ${after / 1000} s after its folder went, within the hold of ${hold / 1000} s`,
      );
  }

  /** The rails the seed's daemon runs with (seed-settings.ts), and the shortest window it has. */
  #railLimits(): RailLimits {
    const { safety, schedule } = this.world.life.config;
    const { maxDeletePercent, maxDeleteCount } = safety;
    return { maxDeletePercent, maxDeleteCount, windowMs: longestCronGapMs(schedule.cron) };
  }

  diskCall<T>(method: string, args: readonly unknown[], call: () => Promise<T>): Promise<T> {
    return this.disk.call(method, args, call);
  }

  /**
   * A folder call did its work and fails all the same (the flush after it): a new document's
   * folder placed so leaves its pull in doubt, uncommitted, until the entity's next sync.
   */
  #diskWorkDone(method: string, args: readonly unknown[]): void {
    const id = (args[1] as { id?: string } | undefined)?.id;
    if (method !== 'createDocumentFolderWithFiles' || !id || !this.world.running) return;
    if (this.world.life.state.base.get(id) === null) this.ledger.book.placed(id, 'failed');
  }

  afterWrite(write: ServiceWrite, result: unknown, answerLost: boolean): void {
    // Carried out, though docsync saw it fail: the service lost the answer (its in-doubt push).
    const ok = !(result instanceof Error) || answerLost;
    if (answerLost) {
      this.note(`  the service carried out ${write.kind} and lost its answer`);
      this.count(`answer lost: ${write.kind}`);
    }
    if ((result as { status?: unknown } | null)?.status === 429) {
      this.count(`429 on a write: ${write.kind}`);
      this.service.rateLimitedWrite = true;
    }
    const status =
      write.kind === 'assign-status' ? (this.#statusNames.get(write.typeId) ?? null) : null;
    this.ledger.wroteToService(write, ok, status);
    if (write.kind === 'delete-document') this.rails.answered(write.documentId, ok);
    // An attachment docsync made: a service user who deletes it later deletes these bytes. A
    // write whose answer was lost has no answer to read here: docsync finds it by reading the
    // service (resolve-in-doubt.ts), and the book reads the service for it too.
    const answered = ok && !(result instanceof Error);
    if (answered && write.kind === 'upload-attachment' && write.sha256)
      this.ledger.book.attachmentIds.set(
        (result as RemoteAttachment).id,
        fileKey(write.documentId, write.sha256),
      );
    if (answerLost && write.kind === 'upload-attachment' && write.sha256)
      this.#uploadedUnanswered(write.documentId, write.sha256);
    if (write.kind !== 'create-document') return;
    const replaces = this.#createReplaces(write.owner, write.name);
    if (answered) {
      const doc = result as RemoteDocument;
      this.ledger.book.document({ ...doc, owner: write.owner }, 'docsync');
      this.ledger.statusEdit(doc.id, doc.status?.type ?? null, 'docsync');
      if (replaces) this.ledger.book.madeAgain.set(doc.id, replaces);
    }
    const made = answerLost ? this.#madeUnanswered(write.owner) : null;
    if (made && replaces) this.ledger.book.madeAgain.set(made, replaces);
  }

  /**
   * The document a create just sent takes the place of (a restore, rows 12, 19, 54), as its
   * record in the outbox says: sent, not yet answered, of this owner and name.
   */
  #createReplaces(owner: OwnerRef, name: string): string | null {
    if (!this.world.running) return null;
    const item = this.world.life.state.outbox
      .inDoubt()
      .filter(
        (i) =>
          i.kind === 'create-document' &&
          i.owner.kind === owner.kind &&
          i.owner.id === owner.id &&
          i.payload.name === name &&
          !i.payload.createdId,
      )
      .at(-1);
    return item?.kind === 'create-document' ? (item.payload.replaces ?? null) : null;
  }

  /**
   * A create the service carried out and lost the answer of: the document docsync made is the
   * owner's newest one the book does not know (ids grow), or the person's files that docsync
   * puts in it would read as lost from the folder's own document.
   */
  #madeUnanswered(owner: OwnerRef): string | null {
    const made = this.view.sim.admin
      .documents()
      .filter(
        (d) =>
          d.owner.kind === owner.kind &&
          d.owner.id === owner.id &&
          !this.ledger.book.documents.has(d.id),
      )
      .at(-1);
    if (!made) return null;
    this.ledger.book.document({ ...made, owner }, 'docsync');
    this.ledger.statusEdit(made.id, made.status, 'docsync');
    return made.id;
  }

  /**
   * An upload the service carried out and lost the answer of: the attachment docsync made is the
   * document's newest user attachment the book does not know (added last). Unknown, a service
   * user's later delete of it would not count as theirs, and the person's file that docsync then
   * moves to the trash (row 30) would read as lost.
   */
  #uploadedUnanswered(documentId: string, sha: string): void {
    const book = this.ledger.book;
    const made = this.view.sim.admin
      .attachments(documentId)
      .filter((a) => !a.system && !book.attachmentIds.has(a.id))
      .at(-1);
    if (made) book.attachmentIds.set(made.id, fileKey(documentId, sha));
  }

  localCall(method: string, args: readonly unknown[]): ((result: unknown) => void) | null {
    return watchRemoval(this.world.root, method, args, (detail) =>
      this.ledger.found(LOCAL_TRASH_COPY, detail),
    );
  }

  /**
   * An operator's decision on one entity's folder, run by the daemon under the entity's lock:
   * from the status page (parked until the seed lets it go) or handed over by a command. What it
   * changes in the folder is the person's doing: a status it writes is a status they typed,
   * bytes it moves to the trash are bytes they let go, and a document folder of the entity it
   * moves to the trash (the deleting side kept, of a restored document) is a folder they
   * deleted, by its id and by its name, so the delete in the service that follows is theirs.
   */
  async operatorJob<T>(life: Life, owner: OwnerRef, job: () => Promise<T>, via: 'page' | 'cli') {
    if (life.dead) throw new CrashedError();
    if (via === 'page') {
      const label = `page decision on ${ownerKeyOf(owner)}`;
      this.note(`  parked: ${label}`);
      await this.world.board.park('operator', label, life.n);
      if (life.dead) throw new CrashedError();
    }
    const before = folderPicture(this.view, copiedFolders(this), brokenFolders(this));
    try {
      return await job();
    } finally {
      if (!life.dead)
        this.#operatorDid(
          owner,
          before,
          folderPicture(this.view, copiedFolders(this), brokenFolders(this)),
        );
    }
  }

  #operatorDid(owner: OwnerRef, before: FolderPicture, after: FolderPicture): void {
    for (const [id, { owner: of, name }] of before.documents)
      if (of === ownerKeyOf(owner) && !after.documents.has(id)) {
        this.ledger.removedFromStore.add(id);
        this.ledger.deletedNames.add(name);
        this.ledger.book.folderDeletedAt.set(id, this.ledger.nextSeq());
      }
    for (const [id, status] of after.statuses)
      if (before.statuses.has(id) && before.statuses.get(id) !== status)
        this.ledger.statusEdit(id, status, 'operator');
    for (const sha of before.shas)
      if (!after.shas.has(sha)) {
        this.ledger.deleted(sha);
        this.ledger.operatorLetGo.add(sha);
      }
    for (const key of before.files) if (!after.files.has(key)) this.ledger.book.deleted.add(key);
  }

  // ---- steps ----

  /** Waits until nothing runs (park-board.ts); notes what the daemon decided meanwhile. */
  async settle(): Promise<void> {
    await this.world.board.settle();
    noteDecisions(this);
    // Once the push a 429 failed is recorded: it must be due again, not held as refused.
    if (this.service.rateLimitedWrite && this.world.running) {
      this.service.rateLimitedWrite = false;
      this.ledger.findings.push(...rateLimitFindings(this.world.life.state));
    }
  }

  get parked(): readonly Parked[] {
    return this.world.board.parked;
  }

  /** Releases the first parked item that `matches`; the scenario expected one. */
  async releaseWhere(matches: (item: Parked) => boolean, what: string): Promise<void> {
    const item = this.parked.find(matches);
    if (!item)
      throw new Error(
        `nothing parked is ${what}; parked: ${this.parked.map((p) => p.label).join('; ')}`,
      );
    await this.release(item);
  }

  /**
   * SIGTERM while the daemon works: resolves when it has stopped. A sync that begins after the
   * signal is a finding. `restart` starts the next daemon.
   */
  sigterm(): Promise<void> {
    this.note('SIGTERM');
    this.#stopping = true;
    return this.world.sigterm();
  }

  async restart(): Promise<void> {
    this.#stopping = false;
    this.note('the daemon starts again');
    await this.#startDaemon();
    await this.settle();
  }

  async release(item: Parked): Promise<void> {
    this.note(`release ${item.label}`);
    this.world.board.release(item);
    await this.settle();
  }

  /** Time passes: every timer due within `ms` fires, one at a time, in order. */
  async advance(ms: number): Promise<void> {
    const until = this.clock.now() + ms;
    this.note(`time +${ms / 1000} s`);
    for (let due = this.clock.nextDue(); due !== null && due <= until; due = this.clock.nextDue()) {
      this.clock.fireNext();
      await this.settle();
    }
    this.clock.moveTo(until);
  }

  /** The service starts failing as `faults` say, or heals (`{}`). */
  faults(faults: FaultOptions, label: string): void {
    this.note(`service: ${label}`);
    this.world.sim.admin.setFaults({ ...faults, ...this.ledger.uploadNames });
  }

  /**
   * The service stores uploads' names as `naming` says from now to the seed's end: its way, not
   * a fault that heals (the ledger knows it, to find a person's file under its stored name).
   */
  uploadNaming(naming: UploadNaming, label: string): void {
    this.ledger.uploadNames = naming;
    this.faults({}, label);
  }

  async deliver(hook: QueuedWebhook, how: string): Promise<void> {
    this.note(`webhook ${how}: ${hook.subType} ${hook.documentId} (${hook.eventId})`);
    if (!this.world.running) return;
    const { life } = this.world;
    const status = await this.webhooks.deliver(
      hook,
      life.receiverUrl,
      life.state.cycles.last()?.id ?? 0,
    );
    if (status !== 200) this.note(`  receiver answered ${status}`);
    await this.settle();
  }

  /**
   * The process dies between two instructions, wherever its syncs are parked; a minute later
   * (the dead one's lock expired) a new daemon starts on what was persisted.
   */
  async crash(): Promise<void> {
    this.note('crash, and a restart a minute later');
    this.coverage.crashed(this.parked.flatMap((p) => (p.step ? [p.step] : [])));
    this.ledger.book.crashed();
    await this.world.crash();
    this.clock.dropTimers();
    this.clock.pass(RESTART_AFTER_MS);
    await this.#startDaemon();
    await this.settle();
  }

  /**
   * Starts a daemon. One that cannot start because the disk fails under it (disk-faults.ts)
   * exits, and systemd starts it again a minute later; after a few tries a person mends the disk.
   */
  async #startDaemon(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.world.startDaemon();
        return;
      } catch (error) {
        if (!isDiskFault(error)) throw error;
        this.note(`  the daemon did not start: ${(error as Error).message}`);
        await this.world.crash();
        this.clock.dropTimers();
        this.clock.pass(RESTART_AFTER_MS);
        if (attempt >= 3) {
          this.note('disk: healed (a person mends it, the daemon cannot start)');
          this.count('disk: healed so the daemon can start');
          this.disk.set(null);
        }
      }
    }
  }

  /** A round of polls (every entity listed since its cursor), or a full one. */
  requestRound(full: boolean): void {
    this.note(full ? 'full round' : 'poll round');
    void this.world.life.daemon.request({
      trigger: 'cron',
      ...(full ? { fullReconcile: true } : {}),
    });
  }

  // ---- the end ----

  /**
   * Lets everything parked go on and finish: parked work is released in the seed's order; a
   * webhook event waiting for its retry gets its time, up to `forMs` of it (false: it stopped
   * there, or after its step budget, not at rest).
   */
  async drain(forMs = Number.POSITIVE_INFINITY): Promise<boolean> {
    const until = this.clock.now() + forMs;
    for (let i = 0; i < 2000; i++) {
      const parked = this.parked;
      if (parked.length > 0) {
        await this.release(pick(this.random, parked));
        continue;
      }
      if (!this.world.running) return true;
      if (this.world.life.state.webhookEvents.countPending() > 0 && this.clock.nextDue() !== null) {
        if (this.clock.now() >= until) return false;
        await this.advance(30_000);
        continue;
      }
      return true;
    }
    return false;
  }

  /**
   * The world is brought to rest and judged: the service heals, webhooks never sent are sent
   * late or given up on, everything parked finishes; then poll rounds, hours apart (every
   * backoff runs out), until one changes nothing; the webhooks are judged, and a picture taken;
   * then full rounds until quiet, which must have changed nothing of that picture (the poll
   * rounds converged on their own: convergence.ts), and the rest of the invariants.
   */
  async finish(): Promise<SeedOutcome> {
    this.note('--- the world comes to rest');
    this.faults({}, 'healed');
    for (const hook of [...this.webhooks.waiting]) {
      if (this.random() < 0.5) await this.deliver(hook, 'late');
      else {
        this.note(`webhook never sent: ${hook.subType} ${hook.documentId}`);
        this.count('webhook never sent');
      }
    }
    // The disk is mended a while after the seed's last step: the work that waited until now (the
    // deletes, moves and renames of the syncs parked) meets its fault first.
    if (this.disk.on) {
      await this.drain(MENDED_AFTER_MS);
      this.note('disk: healed');
      this.disk.set(null);
    }
    let rested = await this.#toRest(false);
    // A person's last looks at what waits for them (random runs); what they decide comes to rest.
    for (let look = 0; rested && look < 3 && (await this.lastLook?.()); look++)
      rested = await this.#toRest(false);
    if (rested) {
      this.ledger.findings.push(
        ...webhookFindings(
          this.world.life.state,
          this.webhooks.sent,
          new Set(this.service.vanished.map((v) => ownerKeyOf(v.owner))),
        ),
      );
      const polled = await this.#roundsPicture();
      if (await this.#toRest(true)) {
        const o = await observe(this.world.root, this.world.life.state, await this.view.remote());
        const full = roundsPicture(o, this.world.life.state.cursors.list());
        this.ledger.findings.push(
          ...convergenceFindings(
            polled,
            full,
            this.service.missedByAListing(),
            this.service.entered,
            this.service.vanishedOwners(),
          ),
        );
        this.ledger.findings.push(...finalFindings(o, this.ledger, this.world.root));
        this.ledger.findings.push(
          ...serviceWorldFindings(o, this.ledger, this.service, this.world.root),
        );
      }
    }
    this.ledger.findings.push(
      ...railFindings(this.rails.sent, this.#railLimits(), this.ledger.book.folderDeletedAt),
    );
    this.note(`end: ${this.ledger.findings.length} findings`);
    return {
      seed: this.seed,
      trace: this.trace,
      findings: this.ledger.findings,
      injected: this.injected,
      steps: this.steps,
      log: [...this.world.log],
      coverage: this.coverage.coverage,
    };
  }

  async #toRest(full: boolean): Promise<boolean> {
    if (!(await this.drain())) {
      this.ledger.found(QUIET, 'the daemon did not come to rest: its work kept coming back');
      return false;
    }
    for (let round = 0; round < ROUNDS_TO_REST; round++) {
      const before = await this.#picture();
      this.clock.pass(PAST_EVERY_BACKOFF_MS);
      this.requestRound(full);
      await this.drain();
      if ((await this.#picture()) === before) return true;
    }
    this.ledger.found(
      QUIET,
      `${full ? 'full' : 'poll'} rounds still changed something after ${ROUNDS_TO_REST}`,
    );
    return false;
  }

  /** The agreed rows, the cursors and both sides' files (convergence.ts). */
  async #roundsPicture(): Promise<RoundsPicture> {
    const { state } = this.world.life;
    const o = await observe(this.world.root, state, await this.view.remote());
    return roundsPicture(o, state.cursors.list(), state.statusTypes.fetchedAt() === null);
  }

  /** Both sides and the agreed state, as one string: equal pictures, nothing changed. */
  async #picture(): Promise<string> {
    const o = await observe(this.world.root, this.world.life.state, await this.view.remote());
    const docs = o.dump.documents.map((d) => ({
      id: d.id,
      name: d.name,
      status: d.status?.type ?? null,
      files: d.attachments.map((a) => `${a.name}:${a.sha256}`).sort(),
    }));
    const base = o.base.map((b) => ({
      ...b,
      attachments: b.attachments.map((a) => `${a.id}:${a.file}:${a.sha256}`),
    }));
    // What the next round acts on besides both sides: the first sync's end, items in error,
    // held deletes, pushes left open, webhook events waiting.
    const { state } = this.world.life;
    const work = {
      initial: state.settings.initialSyncDone(),
      // Sorted: problems seen first at one instant (one virtual millisecond) list in any order.
      problems: state.problems
        .list()
        .map((p) => p.key)
        .sort(),
      held: state.heldDeletes.list().map((h) => `${h.documentId}:${h.side}:${h.decision}`),
      outbox: state.outbox.counts(),
      webhooks: state.webhookEvents.countPending(),
    };
    return JSON.stringify({ docs, tree: [...o.tree].sort(), base, work });
  }

  async close(): Promise<void> {
    try {
      await this.world?.close();
    } finally {
      this.clock.uninstall();
      // A rejection left unheard is reported after the turn it happened in: one more turn, so
      // it is this seed's finding, not the next one's.
      await new Promise<void>((resolve) => setImmediate(resolve));
      process.off('unhandledRejection', this.#unheard);
    }
  }

  /**
   * A promise that rejected with nobody to hear it (a chain left unawaited, ended by a crash):
   * a finding of this seed, named with it, where the test runner would only print it apart.
   */
  readonly #unheard = (reason: unknown): void => {
    const error = reason instanceof Error ? reason : new Error(String(reason));
    const where = error.stack?.split('\n').find((l) => l.includes('/test/') || l.includes('/src/'));
    this.note(`unheard rejection: ${error.name}: ${error.message}`);
    this.ledger.found(
      NO_UNHANDLED,
      `${error.name}: ${error.message}${where ? ` (${where.trim()})` : ''}`,
    );
  };
}

/** Document statuses and file contents of the folder, before and after an operator's job. */
interface FolderPicture {
  readonly statuses: Map<string, string | null>;
  /** The entity (`kind:id`) and name of each document with a folder. */
  readonly documents: Map<string, { owner: string; name: string }>;
  readonly shas: Set<string>;
  /** Each content in its document (`fileKey`). */
  readonly files: Set<string>;
}

/**
 * The folder as a decision finds and leaves it, but for the folders in `aside` (copies). A
 * folder whose `.document.json` a person broke is its document's still (`broken`: folder → id):
 * what a decision takes out of it, it takes out of that document.
 */
function folderPicture(
  view: SyncHarness,
  aside: readonly string[],
  broken: ReadonlyMap<string, string>,
): FolderPicture {
  const tree = new Map(
    [...view.tree()].filter(([rel]) => !aside.some((folder) => rel.startsWith(`${folder}/`))),
  );
  const statuses = new Map<string, string | null>();
  const documents = new Map<string, { owner: string; name: string }>();
  const ids = new Map<string, string>(broken);
  for (const rel of tree.keys()) {
    if (!rel.endsWith('/.document.json')) continue;
    const folder = rel.slice(0, -'/.document.json'.length);
    try {
      const meta = view.meta(folder);
      statuses.set(meta.id, meta.status);
      documents.set(meta.id, { owner: ownerKeyOf(meta.owner), name: meta.name });
      ids.set(folder, meta.id);
    } catch {
      // A broken .document.json names no document (`broken` may, above).
    }
  }
  const files = new Set(
    [...tree].map(([rel, sha]) => fileKey(ids.get(path.posix.dirname(rel)) ?? null, sha)),
  );
  return { statuses, documents, shas: new Set(tree.values()), files };
}

function entityFoldersIn(root: string): string[] {
  return ['Companies', 'Trusts'].flatMap((top) => {
    const dir = path.join(root, top);
    if (!existsSync(dir)) return [];
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => `${top}/${e.name}`)
      .sort();
  });
}

/** The first line of a trace: how the daemon is configured. */
function worldLine(plan: SeedPlan): string {
  const rails = plan.safety
    ? `raised to ${plan.safety.maxDeletePercent} % and ${plan.safety.maxDeleteCount}`
    : 'at their defaults';
  const hold = plan.deleteHoldSeconds ?? 60;
  return `world: queue.concurrency ${plan.concurrency ?? 1}, delete rails ${rails}, deletes held ${hold} s`;
}

/** The failpoint's `what` as a pull left in doubt is settled (engine/settle-pulls.ts). */
const SETTLED = 'pull-new-document settled';

/** The new document whose pull placed its folder and is about to commit it, at this failpoint. */
function newDocumentPlaced(step: Failpoint, site: FailpointSite): string | null {
  if (step !== 'before-commit' || site.what !== 'pull-new-document') return null;
  return site.documentId ?? null;
}

function labelOf(step: Failpoint, site: FailpointSite): string {
  const parts: string[] = [step];
  if (site.owners)
    parts.push(site.owners === 'all' ? 'all' : site.owners.map(ownerKeyOf).join(','));
  if (site.owner) parts.push(ownerKeyOf(site.owner));
  if (site.documentId) parts.push(site.documentId);
  if (site.what) parts.push(site.what);
  return parts.join(' ');
}

/** Whether the daemon's state calls the event done (a dead life's closed state: it does not). */
function eventDone(life: Life, eventId: string): boolean {
  try {
    return life.state.webhookEvents.get(eventId)?.state === 'done';
  } catch {
    return false;
  }
}
