/**
 * What users of the service do, at random, through the simulator's admin API: new documents
 * (with user and system attachments), new statuses, attachments added, replaced (delete + add
 * under the same name) and removed, documents deleted. Every byte goes into the ledger.
 */
import { pick, type Random } from '../../src/simulator/random.js';
import { type DumpDocument, sha256 } from '../helpers/sync-harness.js';
import { type ChaosWorld, content } from './local-edits.js';

function addAttachment(world: ChaosWorld, docId: string, name: string, system: boolean): void {
  const bytes = content(world, `remote ${system ? 'system' : 'user'}`);
  world.h.sim.admin.addAttachment(docId, { name, bytes, system });
  world.ledger.wrote(sha256(bytes), `remote ${docId}/${name}`);
}

/**
 * Deletes one of the document's user attachments, at random; null when it has none. The service
 * refuses to delete a system attachment (403), for its users too.
 */
function deleteUserAttachment(world: ChaosWorld, doc: DumpDocument) {
  const users = doc.attachments.filter((a) => a.kind === 'user');
  if (users.length === 0) return null;
  const gone = pick(world.random, users);
  world.h.sim.admin.deleteAttachment(doc.id, gone.id);
  world.ledger.deleted(gone.sha256);
  return gone;
}

const coin = (random: Random, p: number) => random() < p;

export const remoteEdits = {
  async newDocument(world: ChaosWorld): Promise<void> {
    const owners = await world.h.owners();
    const name = `Service ${world.seed}-${world.ledger.serial()}`;
    const doc = world.h.sim.admin.createDocument({ owner: pick(world.random, owners), name });
    const files = Math.floor(world.random() * 3);
    for (let i = 0; i < files; i++)
      addAttachment(world, String(doc.id), `form ${i}.pdf`, coin(world.random, 0.3));
    world.ledger.madeNames.add(name);
    world.ledger.note(`  document ${doc.id} made in the service (${name})`);
  },

  /** One of the firm's usual types that its catalogue still has (a type may be taken out). */
  newStatus(world: ChaosWorld, doc: DumpDocument, catalogue?: readonly number[]): boolean {
    const types = [2, 3, 10, 11, 20, 21].filter((id) => !catalogue || catalogue.includes(id));
    if (types.length === 0) return false;
    world.h.sim.admin.assignStatus(doc.id, { typeId: pick(world.random, types) });
    return true;
  },

  addAttachment(world: ChaosWorld, doc: DumpDocument, name?: string): void {
    const system = coin(world.random, 0.2);
    addAttachment(world, doc.id, name ?? `remote ${world.ledger.serial()}.pdf`, system);
  },

  replaceAttachment(world: ChaosWorld, doc: DumpDocument): boolean {
    const old = deleteUserAttachment(world, doc);
    if (!old) return false;
    addAttachment(world, doc.id, old.name, false);
    return true;
  },

  removeAttachment(world: ChaosWorld, doc: DumpDocument): boolean {
    return deleteUserAttachment(world, doc) !== null;
  },

  deleteDocument(world: ChaosWorld, doc: DumpDocument): boolean {
    if (world.keepers.has(doc.id)) return false;
    world.h.sim.admin.deleteDocument(doc.id);
    for (const a of doc.attachments) world.ledger.deleted(a.sha256);
    world.ledger.deletedNames.add(doc.name);
    world.ledger.note(`  document ${doc.id} deleted in the service`);
    return true;
  },
};

/** One random service edit; false when the pick did not apply. */
export async function randomRemoteEdit(world: ChaosWorld, targetId?: string): Promise<boolean> {
  const roll = world.random();
  if (roll < 0.15 && !targetId) {
    await remoteEdits.newDocument(world);
    return true;
  }
  const dump = await world.h.remote();
  const docs = dump.documents;
  const doc = targetId
    ? docs.find((d) => d.id === targetId)
    : docs.length > 0
      ? pick(world.random, docs)
      : undefined;
  if (!doc) return false;
  if (roll < 0.35)
    return remoteEdits.newStatus(
      world,
      doc,
      dump.statusTypes.map((t) => t.id),
    );
  if (roll < 0.6) remoteEdits.addAttachment(world, doc);
  else if (roll < 0.75) return remoteEdits.replaceAttachment(world, doc);
  else if (roll < 0.9) return remoteEdits.removeAttachment(world, doc);
  else return remoteEdits.deleteDocument(world, doc);
  return true;
}
