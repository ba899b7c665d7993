/**
 * How a seed's profile (seed-profile.ts) bends the random driver's choices: how often syncs park
 * and answers are held, which kind of an injection is picked, and a service edit of a kind the
 * seed leans to. Every draw is still one of the seed's generator, in the same order, so a seed
 * replays exactly. Two edits here aim at rows the chaos suite's never reach: an attachment added
 * in the service under a name the document has (row 44), and a `.document.json` a person
 * removed (row 14).
 */
import type { Random } from '../../src/simulator/random.js';
import { pick } from '../../src/simulator/random.js';
import type { ChaosWorld, LocalDoc } from '../chaos/local-edits.js';
import { remoteEdits } from '../chaos/remote-edits.js';
import { isCreateStep, isWriteOver } from './mid-sync-steps.js';
import { deleteFromFolderPlanned } from './recycle-bin.js';
import type { SeedProfile } from './seed-profile.js';
import { PARK_CHANCE, type SeedRun } from './seed-run.js';

/** Late answers: the usual share held back, and the share in a seed that leans to them. */
const HELD = { usual: 0.08, leaning: 0.25 } as const;

/**
 * A write over something a person may be editing (a trash, a rename, `.document.json`), a step
 * of a create from a new folder, and a plan with a row 8 delete park this often: the windows
 * mid-sync-steps.ts and recycle-bin.ts act in.
 */
const WINDOW_PARK = 0.6;

/** A seed's parks and held answers, as its profile says (SeedRun.start's setup). */
export function steerRun(run: SeedRun, profile: SeedProfile): void {
  run.parkAt = (step, site) => {
    const window =
      isWriteOver(step, site) || isCreateStep(step, site) || deleteFromFolderPlanned(step, site);
    const usual = window ? WINDOW_PARK : PARK_CHANCE[step];
    return run.random() < profile.parkChance(step, usual);
  };
  run.holdAt = () => run.random() < profile.chance('late answers', HELD.usual, HELD.leaning);
}

/**
 * Before each step: the leanings wake once the first sync is done; and the status types' route,
 * failing from the start in a seed that leans so, answers again once docsync has marked the
 * list unreadable (status pushes then wait until a full cycle reads it: row 55), so the first
 * sync is not held for the whole seed.
 */
export function wake(run: SeedRun, profile: SeedProfile, statusTypesFail: { on: boolean }): void {
  if (!run.world.running) return;
  const { state } = run.world.life;
  profile.awake ||= state.settings.initialSyncDone();
  if (!statusTypesFail.on) return;
  // Another fault since replaced it: nothing of it is left to heal.
  if (faultsInjected(run) > 1) statusTypesFail.on = false;
  else if (state.statusTypes.unreadable() !== null) {
    statusTypesFail.on = false;
    run.faults({}, 'healed: the status types answer again');
  }
}

const faultsInjected = (run: SeedRun) =>
  Object.entries(run.injected).reduce(
    (n, [kind, k]) => n + (kind.startsWith('fault: ') ? k : 0),
    0,
  );

/** One of `kinds`, each as likely as its weight, boosted where the profile has `prefix kind` on. */
export function steeredPick<T extends string>(
  random: Random,
  profile: SeedProfile,
  prefix: string,
  kinds: readonly (readonly [kind: T, weight: number])[],
): T {
  const weights = kinds.map(([kind, w]) => w * profile.boost(`${prefix}${kind}`));
  let roll = random() * weights.reduce((sum, w) => sum + w, 0);
  for (const [i, w] of weights.entries()) {
    roll -= w;
    if (roll < 0) return kinds[i]![0];
  }
  return kinds[kinds.length - 1]![0];
}

/** The service edits of the chaos suite (remote-edits.ts), as likely as it makes them. */
const REMOTE_EDITS = [
  ['new document', 0.15],
  ['new status', 0.2],
  ['attachment added', 0.25],
  ['attachment replaced', 0.15],
  ['attachment removed', 0.15],
  ['document deleted', 0.1],
  ['attachment added under a name it has', 0.05],
] as const;

/** One service edit of a kind the seed's profile leans to; false when the pick did not apply. */
export async function steeredRemoteEdit(world: ChaosWorld, profile: SeedProfile): Promise<boolean> {
  const kind = steeredPick(world.random, profile, 'remote: ', REMOTE_EDITS);
  if (kind === 'new document') {
    await remoteEdits.newDocument(world);
    return true;
  }
  const dump = await world.h.remote();
  const docs = dump.documents;
  if (docs.length === 0) return false;
  const doc = profile.pickDocument(world.random, docs);
  switch (kind) {
    case 'new status':
      // A type the catalogue still has: a service user cannot pick one taken out of it.
      return remoteEdits.newStatus(
        world,
        doc,
        dump.statusTypes.map((t) => t.id),
      );
    case 'attachment added':
      remoteEdits.addAttachment(world, doc);
      return true;
    case 'attachment replaced':
      return remoteEdits.replaceAttachment(world, doc);
    case 'attachment removed':
      return remoteEdits.removeAttachment(world, doc);
    case 'document deleted':
      return remoteEdits.deleteDocument(world, doc);
    case 'attachment added under a name it has': {
      // Two attachments of one name: the folder gets the new one as `name (2)` (row 44).
      const names = doc.attachments.map((a) => a.name);
      if (names.length === 0) return false;
      remoteEdits.addAttachment(world, doc, pick(world.random, names));
      return true;
    }
  }
}

/**
 * A person removes a document's `.document.json`; docsync writes it again from the agreed state
 * (row 14). Only in a folder docsync knows by its path (`agreedFolder`, the base's), once the
 * first sync is done: elsewhere, without it, the folder is one docsync cannot tell from a new
 * one (rows 2 and 3, and the agreed one deleted, row 8), as the decision table means. And only
 * while it shows the service's status: a status typed and not yet pushed would go with it, the
 * person's own doing, which the ledger cannot tell from a status docsync lost.
 */
export async function removeDocumentMeta(
  world: ChaosWorld,
  doc: LocalDoc,
  agreedFolder: string | null,
): Promise<boolean> {
  if (agreedFolder !== doc.folder) return false;
  const status = world.h.meta(doc.folder).status;
  const remote = (await world.h.remote()).documents.find((d) => d.id === doc.id);
  if (!remote || (remote.status?.type ?? null) !== status) return false;
  world.h.remove(`${doc.folder}/.document.json`);
  return true;
}
