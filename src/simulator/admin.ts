/**
 * The admin operations, in-process (`simulator.admin`) and over HTTP (`/_admin/...`): seed a
 * firm, change it as a user of the service would, and look inside (state, counters, webhook
 * log). Changes made here go through the same DocumentOps as the API, so they move
 * `lastUpdatedTimestamp` forward and send their webhook like any other change.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AnswerHolds, HeldRoute } from './answer-holds.js';
import type { SimClock } from './clock.js';
import type { CountersSnapshot, RequestCounters } from './counters.js';
import type { DocumentOps } from './document-ops.js';
import { type CompanyInput, makeCompany, makeTrust, type TrustInput } from './entity-factory.js';
import { EntityOps } from './entity-ops.js';
import type { FaultOptions, Faults } from './faults.js';
import type { LinkCounters, LinkHost, LinkSettings } from './link-host.js';
import type { OAuthServer } from './oauth.js';
import { seededRandom } from './random.js';
import { DEFAULT_MODES, type RateLimiter, type RateMode } from './rate-limit.js';
import { attachmentId, type OwnerKey, type OwnerKind } from './records.js';
import { type SeedOption, type SeedSummary, seedFirm } from './seed.js';
import type { ShapeOptions, SimShapes } from './shapes.js';
import { dumpState, type StateDump } from './state-dump.js';
import type { Actor, SimStore } from './store.js';
import { attachmentView, companyView, documentDetails, statusView, trustView } from './views.js';
import type { WebhookAttempt, WebhookSender, WebhookTarget } from './webhooks.js';

/** The service user whose changes the admin operations stand for. */
export const SERVICE_USER: Actor = { userId: 'user-2002', name: 'Sam Service' };

export interface AdminNewDocument {
  readonly owner: { readonly kind: OwnerKind; readonly id: string };
  readonly name: string;
  /** yyyy-MM-dd; today (server clock) when missing. */
  readonly documentDate?: string;
  readonly asicDocNumber?: string | null;
  readonly statusTypeId?: number;
}

export interface AdminNewAttachment {
  readonly name: string;
  readonly bytes: Uint8Array | string;
  /** A system attachment (`F…`), as the service itself produces; default false (user, `UA…`). */
  readonly system?: boolean;
}

/** How the rate limit counts (`setRateLimit`); what is not given stays as it is, modes excepted. */
export interface RateSettings {
  readonly modes?: readonly RateMode[];
  readonly burst?: number;
  readonly arrivalJitterMs?: number;
}

export interface AdminCounters {
  readonly api: CountersSnapshot;
  readonly links: LinkCounters;
}

export interface AdminDeps {
  readonly store: SimStore;
  readonly ops: DocumentOps;
  readonly clock: SimClock;
  readonly oauth: OAuthServer;
  readonly faults: Faults;
  readonly holds: AnswerHolds;
  readonly links: LinkHost;
  readonly counters: RequestCounters;
  readonly webhooks: WebhookSender;
  readonly rateLimiter: RateLimiter;
  readonly dataDir: string;
  readonly defaultClientId: string;
  readonly shapes: SimShapes;
}

export class SimulatorAdmin {
  private readonly random = seededRandom(Date.now() & 0xffff);
  private readonly entities: EntityOps;

  constructor(private readonly deps: AdminDeps) {
    this.entities = new EntityOps(deps.store, deps.clock);
  }

  seed(seed: SeedOption): SeedSummary {
    return seedFirm(this.deps.store, this.deps.clock, seed);
  }

  createCompany(input: CompanyInput) {
    const company = makeCompany(this.deps.store, this.random, input);
    return companyView(company, this.deps.store, true);
  }

  createTrust(input: TrustInput) {
    return trustView(makeTrust(this.deps.store, this.random, input));
  }

  createDocument(input: AdminNewDocument) {
    const doc = this.deps.ops.create(
      input.owner,
      {
        name: input.name,
        documentDate: input.documentDate ?? this.deps.clock.today(),
        asicDocNumber: input.asicDocNumber ?? null,
        ...(input.statusTypeId !== undefined ? { statusTypeId: input.statusTypeId } : {}),
      },
      SERVICE_USER,
    );
    return documentDetails(doc);
  }

  assignStatus(documentId: string | number, input: { typeId: number; effectiveDate?: string }) {
    const doc = this.deps.store.requireDocument(null, String(documentId));
    const date = input.effectiveDate ?? this.deps.clock.today();
    return statusView(this.deps.ops.assignStatus(doc, input.typeId, date, SERVICE_USER));
  }

  addAttachment(documentId: string | number, input: AdminNewAttachment) {
    const doc = this.deps.store.requireDocument(null, String(documentId));
    const bytes = typeof input.bytes === 'string' ? Buffer.from(input.bytes) : input.bytes;
    const file = path.join(this.deps.dataDir, `admin-${randomUUID()}`);
    writeFileSync(file, bytes);
    const blob = { kind: 'file' as const, path: file, size: bytes.byteLength };
    const input2 = { name: input.name, blob, system: input.system ?? false };
    return attachmentView(this.deps.ops.addAttachment(doc, input2, SERVICE_USER));
  }

  deleteAttachment(documentId: string | number, attachmentId: string): void {
    const doc = this.deps.store.requireDocument(null, String(documentId));
    this.deps.ops.deleteAttachment(doc, attachmentId, SERVICE_USER);
  }

  /**
   * Makes the service send a company's or trust's record otherwise than it holds it, in its list
   * and its details: `patch` is merged over the answer (`{name: 42}` breaks the contract,
   * `{trustNameId: null}` leaves a trust of the public reading without a name). Null undoes it.
   */
  patchRecord(
    kind: 'company' | 'trust',
    id: string | number,
    patch: Readonly<Record<string, unknown>> | null,
  ): void {
    const key = `${kind}:${id}`;
    if (patch === null) this.deps.store.recordPatches.delete(key);
    else this.deps.store.recordPatches.set(key, { ...patch });
  }

  deleteDocument(documentId: string | number): void {
    this.deps.ops.delete(this.deps.store.requireDocument(null, String(documentId)), SERVICE_USER);
  }

  /** A service user renames or re-dates a document (yyyy-MM-dd). */
  editDocument(
    documentId: string | number,
    change: { readonly name?: string; readonly documentDate?: string },
  ): void {
    const doc = this.deps.store.requireDocument(null, String(documentId));
    this.deps.ops.edit(doc, change, SERVICE_USER);
  }

  /** The next listing of the document's owner leaves it out, once, as a page that skipped it. */
  skipInNextListing(documentId: string | number): void {
    this.deps.store.skipOnce.add(this.deps.store.requireDocument(null, String(documentId)).id);
  }

  renameEntity(owner: OwnerKey, name: string): void {
    this.entities.rename(owner, name);
  }

  /** The company or trust deleted in the service, with every document of it. */
  deleteEntity(owner: OwnerKey): void {
    this.entities.delete(owner);
  }

  /**
   * The company or trust entered again under a new id: the same record, its documents made again
   * under new ids, the old ones gone (entity-ops.ts). Returns the new owner and documents.
   */
  renumberEntity(owner: OwnerKey): { owner: OwnerKey; documentIds: string[] } {
    const { owner: next, documentIds } = this.entities.renumber(owner);
    return { owner: next, documentIds: documentIds.map(String) };
  }

  /** The status type taken out of the firm's catalogue; documents keep the status they have. */
  removeStatusType(typeId: number): void {
    this.entities.removeStatusType(typeId);
  }

  /** Each document's id, owner, name, date and status type, read at once (`dump` hashes bytes). */
  documents(): {
    id: string;
    owner: OwnerKey;
    name: string;
    documentDate: string;
    status: string;
  }[] {
    return [...this.deps.store.documents.values()].map((d) => ({
      id: String(d.id),
      owner: { ...d.owner },
      name: d.name,
      documentDate: d.documentDate,
      status: d.status.type,
    }));
  }

  /**
   * A document's attachments in the order they were added (ids, names, kinds), read at once;
   * none once it is deleted.
   */
  attachments(documentId: string | number): { id: string; name: string; system: boolean }[] {
    const doc = this.deps.store.documents.get(Number(documentId));
    return (doc?.attachments ?? []).map((a) => ({
      id: attachmentId(a),
      name: a.name,
      system: a.system,
    }));
  }

  dump(): Promise<StateDump> {
    return dumpState(this.deps.store);
  }

  counters(): AdminCounters {
    const links = this.deps.links.counters;
    return {
      api: this.deps.counters.snapshot(),
      links: { ...links, byStatus: { ...links.byStatus } },
    };
  }

  resetCounters(): void {
    this.deps.counters.reset();
    Object.assign(this.deps.links.counters, { requests: 0, withAuthorization: 0, byStatus: {} });
  }

  /** A refresh token of a grant with `scope` (default `cas`), as if the firm user had authorised. */
  mintRefreshToken(clientId: string = this.deps.defaultClientId, scope?: string): string {
    return this.deps.oauth.mintRefreshToken(clientId, scope);
  }

  setFaults(faults: FaultOptions): void {
    this.deps.faults.set(faults);
  }

  faults(): FaultOptions {
    return this.deps.faults.get();
  }

  /** Writes carried out whose answer was lost (`lostAnswer`, `loseNextAnswer`), since the start. */
  lostAnswers(): number {
    return this.deps.faults.lostAnswers;
  }

  /**
   * The next `method` write to a route ending with `route` (`/documents/{documentId}/statuses`)
   * is carried out and its answer lost, a 5xx or a reset; healing the faults keeps it armed.
   */
  loseNextAnswer(method: string, route: string): void {
    this.deps.faults.loseNextAnswer(method, route);
  }

  /** The next read of this document's details answers 503, once (a request that failed). */
  failNextDetails(documentId: string | number): void {
    this.deps.faults.failNextDetails(String(documentId));
  }

  /** Answers from now on in these shapes (shapes.ts); `{}` is api.md's again. */
  setShapes(shapes: ShapeOptions): void {
    this.deps.shapes.set(shapes);
  }

  shapes(): ShapeOptions {
    return this.deps.shapes.get();
  }

  /**
   * From now on the answers of `route` wait, the request carried out, until `releaseAnswers`:
   * a late answer at the moment a test chooses (answer-holds.ts).
   */
  holdAnswers(route: HeldRoute): void {
    this.deps.holds.hold(route);
  }

  /** Answers carried out and held back so far. */
  heldAnswers(): number {
    return this.deps.holds.held();
  }

  /** Sends the held answers, and holds no route any more. */
  releaseAnswers(): void {
    this.deps.holds.release();
  }

  /**
   * The rate per access token, how it is counted (rate-limit.ts; a sliding and a calendar second
   * when not given), the bucket's burst, and the most the network delays a request's arrival.
   */
  setRateLimit(perSecond: number, options: RateSettings = {}): void {
    const limiter = this.deps.rateLimiter;
    limiter.perSecond = perSecond;
    limiter.modes = options.modes ?? DEFAULT_MODES;
    if (options.burst !== undefined) limiter.burst = options.burst;
    if (options.arrivalJitterMs !== undefined) limiter.arrivalJitterMs = options.arrivalJitterMs;
  }

  /** How the limit counts now (`setRateLimit`). */
  rateSettings(): Required<RateSettings> & { readonly perSecond: number } {
    const { perSecond, modes, burst, arrivalJitterMs } = this.deps.rateLimiter;
    return { perSecond, modes, burst, arrivalJitterMs };
  }

  /** Requests per second per access token; 0 or Infinity when there is no limit. */
  rateLimit(): number {
    return this.deps.rateLimiter.perSecond;
  }

  /** The link host's own base URL, and where links lead when a test changed it. */
  links(): LinkSettings & { readonly baseUrl: string } {
    return { baseUrl: this.deps.links.baseUrl, ...this.deps.links.settings };
  }

  /**
   * Makes the service hand out links elsewhere, or its link host redirect them (link-host.ts);
   * a key left out keeps its setting, null restores the link host's own.
   */
  setLinks(settings: Partial<LinkSettings>): void {
    this.deps.links.settings = { ...this.deps.links.settings, ...settings };
  }

  setClockOffset(offsetMs: number): void {
    this.deps.clock.offsetMs = offsetMs;
  }

  setWebhook(target: WebhookTarget | null): void {
    this.deps.webhooks.target = target;
  }

  webhookDeliveries(): WebhookAttempt[] {
    return this.deps.webhooks.attempts();
  }

  /** Resolves when no webhook attempt is in flight or waiting for its retry. */
  webhooksIdle(): Promise<void> {
    return this.deps.webhooks.idle();
  }
}
