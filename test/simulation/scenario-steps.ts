/**
 * The steps the scripted scenarios (regressions.ts, regressions-found.ts) are made of: the first
 * sync to its end, a service user's delete, the watcher's settle wait, every queued webhook
 * sent, a sync let go until it reaches a failpoint, and the matchers of what is parked.
 */
import type { Failpoint, FailpointSite } from '../../src/engine/failpoints.js';
import { content, localDocs } from '../chaos/local-edits.js';
import { type DumpDocument, sha256 } from '../helpers/sync-harness.js';
import type { Parked } from './park-board.js';
import { type SeedOutcome, type SeedPlan, SeedRun } from './seed-run.js';
import type { QueuedWebhook } from './sim-webhooks.js';
import { ownerKeyOf } from './sim-world.js';

export interface Scenario {
  /** `case 1a`, as the issue numbers it. */
  readonly name: string;
  /** What a user met, in the words. */
  readonly title: string;
  readonly plan: SeedPlan;
  readonly play: (run: SeedRun) => Promise<void>;
  /**
   * Words the trace must show, proof that the case was played as told (a decision carried out
   * after the sync it waited for, a write refused): a scenario that silently missed its moment
   * would find nothing for the wrong reason.
   */
  readonly expectInTrace?: readonly string[];
}

export const SMALL: SeedPlan = {
  firm: { companies: 1, trusts: 0, documentsPerEntity: 2, attachmentsPerDocument: 1 },
  safety: { maxDeletePercent: 100, maxDeleteCount: 1000 },
  injections: 0,
  maxSteps: 0,
};

export const TWO_COMPANIES: SeedPlan = {
  ...SMALL,
  firm: { companies: 2, trusts: 0, documentsPerEntity: 2, attachmentsPerDocument: 1 },
};

/** Runs a scenario on its own world (the seed makes the firm and the order of the drains). */
export async function runScenario(scenario: Scenario, seed = 1): Promise<SeedOutcome> {
  const run = await SeedRun.start(seed, scenario.plan);
  try {
    // Only a chain's start parks, and no answer is late, unless the scenario says otherwise.
    run.parkAt = () => false;
    run.holdAt = () => false;
    run.turnAt = () => 0;
    run.note(`scenario ${scenario.name}: ${scenario.title}`);
    await scenario.play(run);
    return await run.finish();
  } finally {
    await run.close();
  }
}

/** The first sync to its end; a document of the first entity, and the status types. */
export async function synced(run: SeedRun, index = 0) {
  await run.drain();
  if (!run.world.life.state.settings.initialSyncDone())
    throw new Error('the scenario needs the first sync done');
  const doc = localDocs(run.view)[index];
  if (!doc) throw new Error('the scenario needs a document folder');
  // Status types other than the document's own, so each one set is a change.
  const current = run.view.meta(doc.folder).status?.toLowerCase();
  const types = (await run.view.remote()).statusTypes.filter(
    (t) => t.name.toLowerCase() !== current,
  );
  return { doc, types };
}

/**
 * A synced document gets a system form from the service, and a person then edits it in the
 * folder: docsync keeps the edit beside it as `(local edit)` and puts the form back.
 */
export async function keptEditOfSystemForm(run: SeedRun) {
  const { doc } = await synced(run);
  const form = 'Annual Company Statement.pdf';
  const bytes = content(run.chaos, 'remote system');
  run.view.sim.admin.addAttachment(doc.id, { name: form, bytes, system: true });
  run.ledger.wrote(sha256(bytes), `remote ${doc.id}/${form}`);
  await deliverAll(run);
  if (!run.view.exists(`${doc.folder}/${form}`))
    throw new Error('the scenario expected the system form downloaded');
  const edit = content(run.chaos, 'edited form');
  run.view.write(`${doc.folder}/${form}`, edit);
  run.ledger.wrote(sha256(edit), `local ${doc.folder}/${form}`);
  await settleWatcher(run);
  const kept = `${doc.folder}/Annual Company Statement (local edit).pdf`;
  if (!run.view.exists(kept)) throw new Error('the scenario expected the edit kept');
  return { doc, kept };
}

export async function serviceDoc(run: SeedRun, id: string): Promise<DumpDocument> {
  const doc = (await run.view.remote()).documents.find((d) => d.id === id);
  if (!doc) throw new Error(`no document ${id} in the service`);
  return doc;
}

/** A service user deletes the document: its bytes and its name are gone by a user's hand. */
export async function deleteInService(run: SeedRun, id: string): Promise<void> {
  const gone = await serviceDoc(run, id);
  for (const a of gone.attachments) run.ledger.deleted(a.sha256);
  run.ledger.deletedNames.add(gone.name);
  run.view.sim.admin.deleteDocument(gone.id);
}

/** Lets the watcher's settle wait pass, and the sync it asks for run. */
export async function settleWatcher(run: SeedRun): Promise<void> {
  await run.advance(5_000);
  await run.drain();
}

export async function deliverAll(run: SeedRun): Promise<void> {
  for (const hook of [...run.webhooks.waiting]) await run.deliver(hook, 'at once');
  await run.drain();
}

/**
 * Both sides set the document's status, the service's later: the service wins, and the folder's
 * status is recorded as lost in a conflict. Returns the conflict's id.
 */
export async function statusConflict(
  run: SeedRun,
  doc: { folder: string; id: string },
  types: readonly { id: number; name: string }[],
): Promise<number> {
  run.view.editMeta(doc.folder, (meta) => ({ ...meta, status: types[0]!.name }));
  run.clock.pass(60_000);
  run.view.sim.admin.assignStatus(doc.id, { typeId: types[1]!.id });
  await deliverAll(run);
  await settleWatcher(run);
  const conflict = run.world.life.state.conflicts
    .list(10, { open: true })
    .find((c) => c.documentId === doc.id && c.subject?.kind === 'status');
  if (!conflict) throw new Error('the scenario expected a status conflict');
  return conflict.id;
}

/**
 * The service sets another status; its webhook's sync reads the document's details, and that
 * answer comes late: the sync has planned nothing yet and waits for it.
 */
export async function lateDetails(
  run: SeedRun,
  doc: { id: string },
  type: { id: number; name: string },
): Promise<QueuedWebhook[]> {
  run.view.sim.admin.assignStatus(doc.id, { typeId: type.id });
  run.holdAt = (label) => label === `details of ${doc.id}`;
  const hooks = [...run.webhooks.waiting];
  for (const hook of hooks) await run.deliver(hook, 'at once');
  await run.releaseWhere(at('cycle-start'), "the webhook's sync");
  run.holdAt = () => false;
  if (!run.parked.some((p) => p.kind === 'answer'))
    throw new Error('the scenario expected the details answer held');
  return hooks;
}

/** Past the daemon's hold time of a local deletion (`safety.deleteHoldSeconds`, 60). */
export const DELETE_DUE_MS = 65_000;

/** The first document's folder deleted by a person, the watcher heard, its deletion waiting. */
export async function deletedLocally(run: SeedRun) {
  const { doc } = await synced(run);
  for (const sha of doc.files.values()) run.ledger.deleted(sha);
  run.ledger.deletedNames.add(doc.name);
  run.view.remove(doc.folder);
  await settleWatcher(run);
  return { doc };
}

/**
 * Lets parked work go, one failpoint at a time, until `reached` shows among what is parked (a
 * sync stopped after planning, an answer held); throws if it never does.
 */
export async function releaseUntil(
  run: SeedRun,
  reached: (item: Parked) => boolean,
  what: string,
): Promise<void> {
  for (let i = 0; i < 20 && !run.parked.some(reached); i++) {
    const next = run.parked.find((p) => p.kind === 'failpoint');
    if (!next) break;
    await run.release(next);
  }
  if (!run.parked.some(reached)) throw new Error(`the scenario expected ${what}`);
}

export function at(step: Failpoint, owner?: string): (item: Parked) => boolean {
  return (item) =>
    item.step === step && (owner === undefined || ownersOf(item.site).includes(owner));
}

function ownersOf(site: FailpointSite): string[] {
  if (site.owners && site.owners !== 'all') return site.owners.map(ownerKeyOf);
  return site.owner ? [ownerKeyOf(site.owner)] : [];
}
