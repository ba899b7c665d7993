/**
 * The random driver of a seed: at each step, with everything else parked or done, the seed
 * picks one thing to happen, weighted: a parked sync goes on, time passes, or (while the seed
 * has injections left) the world changes under the daemon: a local edit, a service user's edit
 * (its webhook sent at once, later, twice or never), an operator's decision, a fault of the
 * service or of the folder's disk (local-world-steps.ts), a crash. Each seed's daemon is set up
 * as seed-settings.ts draws it.
 * The edits are the chaos suite's generators (test/chaos/local-edits.ts, remote-edits.ts).
 * Each seed leans its own way (seed-profile.ts, steering.ts): some kinds of step and injection,
 * some failpoints, much likelier than in another seed.
 */
import type { FaultOptions } from '../../src/simulator/index.js';
import { pick } from '../../src/simulator/random.js';
import { localEdits } from '../chaos/local-edits.js';
import {
  AWAY_EDITS,
  type AwayEdit,
  awayEdit,
  editableDocs,
  putBackAtTheEnd,
  somethingAway,
  undo,
} from './away-steps.js';
import { lastLook, localWorldSteps } from './local-world-steps.js';
import {
  deleteToCome,
  editUnderDelete,
  editUnderDeleteWeight,
  editUnderWrite,
  newFolderUnnamed,
  renameNewFolder,
  renameNewFolderWeight,
  writesToEditUnder,
} from './mid-sync-steps.js';
import { deleteFolderKept, putBackFromBin, putBackWeight } from './recycle-bin.js';
import { SeedProfile } from './seed-profile.js';
import { type SeedOutcome, type SeedPlan, SeedRun } from './seed-run.js';
import { withSeedSettings } from './seed-settings.js';
import {
  loseNextAnswers,
  SERVICE_WORLD_EDITS,
  serviceWorldEdit,
  skewServiceClock,
} from './service-world.js';
import { removeDocumentMeta, steeredPick, steeredRemoteEdit, steerRun, wake } from './steering.js';
import { removeUnderReplace, removeUnderReplaceWeight } from './under-replace.js';

/** Steps a seed goes on past its injections while a person's new folder is not yet a document. */
const CREATE_GRACE = 20;
/** Steps a seed goes on past its injections while the document of a folder a person deleted is agreed. */
const DELETE_GRACE = 20;

type Step = readonly [weight: number, run: () => Promise<void>];

export async function runRandomSeed(seed: number, plan: SeedPlan): Promise<SeedOutcome> {
  const profile = new SeedProfile(seed);
  const run = await SeedRun.start(seed, withSeedSettings(seed, plan), (r) => steerRun(r, profile));
  run.lastLook = () => lastLook(run);
  try {
    skewServiceClock(run);
    const budget = { injections: plan.injections };
    // A service that stores an upload under a name of its own (spaces made `_`): docsync knows
    // the attachment by the id its answer gave, and a push in doubt has no answer to go by.
    if (profile.on('service: upload names cleaned')) {
      run.count('service: upload names cleaned');
      run.uploadNaming({ cleanedUploadNames: true }, 'stores upload names cleaned (spaces as _)');
    }
    // The status types unread when the first round asks for them: a status a person types
    // waits until they are read (row 55).
    const statusTypesFail = { on: profile.on('status types unread at the start') };
    if (statusTypesFail.on) {
      run.count('fault: status types answer 503');
      run.faults(STATUS_TYPES_FAIL, 'status types answer 503, from the start');
    }
    // Most of a daemon's life comes after its first sync, and a new folder becomes a document
    // only then: in a share of seeds the first sync runs to its end before the first injection
    // (in the others, it mostly outlasts the seed's injections).
    if (profile.on('first sync before the injections')) {
      run.note('the first sync runs to its end before the first injection');
      run.count('start: the first sync done first');
      await run.drain();
    }
    let grace = CREATE_GRACE;
    let deleteGrace = DELETE_GRACE;
    while (run.steps < plan.maxSteps) {
      const open =
        budget.injections > 0
          ? () => choices(run, profile, budget)
          : newFolderUnnamed(run) && grace-- > 0
            ? () => createChoices(run, profile)
            : deleteToCome(run) && deleteGrace-- > 0
              ? () => deleteChoices(run)
              : null;
      if (!open) break;
      run.steps++;
      wake(run, profile, statusTypesFail);
      await weighted(run, open())();
    }
    // What a person moved, copied or broke is seen, then put back before the world comes to rest.
    await putBackAtTheEnd(run);
    return { ...(await run.finish()), profile: profile.features };
  } finally {
    await run.close();
  }
}

/** One of the steps, each as likely as its weight says. */
function weighted(run: SeedRun, steps: readonly Step[]): () => Promise<void> {
  let roll = run.random() * steps.reduce((sum, [w]) => sum + w, 0);
  for (const [weight, step] of steps) {
    roll -= weight;
    if (roll < 0) return step;
  }
  return steps[steps.length - 1]![1];
}

/**
 * The steps open now. An injection spends one of the seed's; a local edit with no document folder
 * to edit yet (the first sync has placed none) gives it back: it changed nothing.
 */
function choices(run: SeedRun, profile: SeedProfile, budget: { injections: number }): Step[] {
  const steps: Step[] = [];
  const inject = (weight: number, kind: string | null, act: () => Promise<unknown>) =>
    steps.push([
      weight,
      async () => {
        budget.injections--;
        if (kind) run.count(kind);
        if ((await act()) === NOTHING) budget.injections++;
      },
    ]);
  const counted = (weight: number, kind: string, act: () => Promise<void>) =>
    steps.push([
      weight,
      () => {
        run.count(kind);
        return act();
      },
    ]);
  const lean = (step: string) => profile.boost(`step ${step}`);
  // A seed on `edits pile up` lets parked work go four times less often: edits of both sides
  // meet in one sync (rows 9-12, 22-24, 33, 34, 42, 43).
  const release = 6 / profile.boost('edits pile up');
  if (run.parked.length > 0) steps.push([release, () => run.release(pick(run.random, run.parked))]);
  steps.push([
    1.5 * lean('time passes'),
    () => run.advance(pick(run.random, [1000, 5000, 30_000, 300_000])),
  ]);
  if (run.chaos.entityFolders.length > 0)
    inject(1.2 * lean('local edit'), null, () => localEdit(run, profile));
  inject(1.2 * lean('remote edit'), null, () => remoteEdit(run, profile));
  inject(0.6 * lean('service world'), null, () => serviceWorld(run));
  const { waiting, sent } = run.webhooks;
  if (waiting.length > 0)
    counted(1.2 * lean('webhook late'), 'webhook late', () =>
      run.deliver(pick(run.random, waiting), 'late'),
    );
  if (sent.length > 0)
    counted(0.3 * lean('webhook again'), 'webhook again', () =>
      run.deliver(pick(run.random, sent), 'again'),
    );
  localWorldSteps(run, inject, lean);
  // A person puts back a folder they deleted, likeliest while its delete is under way.
  const putBack = putBackWeight(run);
  if (putBack > 0) inject(putBack * lean('put back from the bin'), null, () => putBackFromBin(run));
  // A person renames a new folder, likeliest while its create is under way (mid-sync-steps.ts).
  const rename = renameNewFolderWeight(run);
  if (rename > 0) inject(rename * lean('new folder renamed'), null, () => renameNewFolder(run));
  // A person edits what a parked write is about to change (mid-sync-steps.ts).
  if (writesToEditUnder(run).length > 0)
    inject(3 * lean('under a write'), null, () => editUnderWrite(run));
  // A service user changes a document while its delete is under way (mid-sync-steps.ts).
  const underDelete = editUnderDeleteWeight(run);
  if (underDelete > 0)
    inject(underDelete * lean('under a delete'), null, () => editUnderDelete(run));
  // A service user removes a replace's new content before it deletes the old (under-replace.ts).
  const underReplace = removeUnderReplaceWeight(run);
  if (underReplace > 0) inject(underReplace, null, () => removeUnderReplace(run));
  // A person puts back, now and then, something they moved, copied or broke.
  if (somethingAway(run))
    steps.push([0.25 * lean('person undoes'), async () => void (await undo(run, false))]);
  inject(0.5 * lean('fault'), null, async () => fault(run, profile));
  inject(0.3 * lean('answers lost'), null, async () => loseNextAnswers(run));
  if (run.world.running) {
    const aimed = profile.crashAimed(run.parked.map((p) => p.step));
    inject(0.15 * Math.max(lean('crash'), aimed), 'crash', () => run.crash());
  }
  return steps;
}

/**
 * The steps open once the injections are spent and a person's new folder waits for its create:
 * its sync goes on, time passes, the person renames the folder (likeliest with a create step
 * parked), the server goes down. Nothing else is injected, so the create reaches its windows.
 */
function createChoices(run: SeedRun, profile: SeedProfile): Step[] {
  const steps: Step[] = [[1.5, () => run.advance(pick(run.random, [1000, 5000, 30_000]))]];
  if (run.parked.length > 0) steps.push([6, () => run.release(pick(run.random, run.parked))]);
  const rename = renameNewFolderWeight(run);
  if (rename > 0) steps.push([rename, () => renameNewFolder(run)]);
  const underDelete = editUnderDeleteWeight(run);
  if (underDelete > 0) steps.push([underDelete, async () => void (await editUnderDelete(run))]);
  const underReplace = removeUnderReplaceWeight(run);
  if (underReplace > 0)
    steps.push([underReplace, async () => void (await removeUnderReplace(run))]);
  if (run.world.running) {
    const aimed = profile.crashAimed(run.parked.map((p) => p.step));
    steps.push([0.15 * aimed, () => run.crash().then(() => run.count('crash'))]);
  }
  return steps;
}

/**
 * The steps open once the injections are spent and a folder a person deleted still has its
 * document agreed (its delete in the service to come): its sync goes on, time passes (past a
 * delete's hold), and a service user edits the document while its delete waits, its copy taken.
 */
function deleteChoices(run: SeedRun): Step[] {
  const steps: Step[] = [[1.5, () => run.advance(pick(run.random, [5000, 30_000, 60_000]))]];
  if (run.parked.length > 0) steps.push([6, () => run.release(pick(run.random, run.parked))]);
  const underDelete = editUnderDeleteWeight(run);
  if (underDelete > 0) steps.push([underDelete, async () => void (await editUnderDelete(run))]);
  const underReplace = removeUnderReplaceWeight(run);
  if (underReplace > 0)
    steps.push([underReplace, async () => void (await removeUnderReplace(run))]);
  return steps;
}

const LOCAL_EDITS = [
  'new folder',
  'new file',
  'replaced file',
  'deleted file',
  'status typed',
  'unknown status typed',
  'deleted folder',
  'renamed folder',
  '.document.json removed',
  ...AWAY_EDITS,
] as const;

/**
 * As likely as each other, but for the rarer ones, and a new folder: the firm's everyday way to
 * make a document, and the only way into a create's windows (mid-sync-steps.ts).
 */
const LOCAL_EDIT_WEIGHT: Partial<Record<(typeof LOCAL_EDITS)[number], number>> = {
  'new folder': 2.5,
  '.document.json removed': 0.3,
  '.document.json broken': 0.9,
  'folder copied': 0.8,
  'folder moved': 0.9,
  'entity folder moved': 0.9,
};

/** What an injection returns when it found nothing to change: its injection is given back. */
const NOTHING = Symbol('nothing to change yet');

async function localEdit(run: SeedRun, profile: SeedProfile): Promise<typeof NOTHING | undefined> {
  const world = run.chaos;
  // A folder of an entity the service no longer has is left alone (service-world.ts), and so is
  // one a person moved, copied or broke (away-steps.ts).
  const docs = editableDocs(run);
  // A folder made before the first sync ended is one the firm had: held until a person adopts
  // it (`--adopt-local`), never pushed on its own (daemon.md). Later, it is a new document.
  const firstSyncDone = run.world.running && run.world.life.state.settings.initialSyncDone();
  const kinds = firstSyncDone ? LOCAL_EDITS : LOCAL_EDITS.filter((k) => k !== 'new folder');
  const kind = steeredPick(
    run.random,
    profile,
    'local: ',
    kinds.map((k) => [k, LOCAL_EDIT_WEIGHT[k] ?? 1] as const),
  );
  const doc = docs.length > 0 ? profile.pickDocument(run.random, docs) : null;
  if (!doc && kind !== 'new folder') {
    run.note(`local edit: ${kind} (no document folder yet)`);
    return NOTHING;
  }
  let done = true;
  switch (kind) {
    case 'new folder':
      localEdits.newFolder(world);
      break;
    case 'new file':
      localEdits.newFile(world, doc!);
      break;
    case 'replaced file':
      done = localEdits.replaceFile(world, doc!);
      break;
    case 'deleted file':
      done = localEdits.deleteFile(world, doc!);
      break;
    case 'status typed':
      localEdits.editStatus(world, doc!);
      break;
    case 'unknown status typed':
      // Not a status type of the service: docsync refuses to push it, and must keep it (case 2).
      run.view.editMeta(doc!.folder, (meta) => ({
        ...meta,
        status: `Awaiting Partner ${run.ledger.serial()}`,
      }));
      break;
    case 'deleted folder':
      done = await deleteFolderKept(run, doc!);
      break;
    case 'renamed folder':
      done = localEdits.renameFolder(world, doc!);
      break;
    case '.document.json removed':
      done = await removeDocumentMeta(world, doc!, agreedFolder(run, firstSyncDone, doc!.id));
      break;
    default:
      done = awayEdit(run, kind as AwayEdit, doc!);
  }
  run.note(
    `local edit: ${kind} ${doc && kind !== 'new folder' ? doc.folder : ''}${done ? '' : ' (nothing to do)'}`,
  );
  if (done) run.count(`local: ${kind}`);
  await run.settle();
}

/** The folder the agreed state names for a document, once the first sync is done. */
function agreedFolder(run: SeedRun, firstSyncDone: boolean, id: string): string | null {
  return firstSyncDone ? (run.world.life.state.base.get(id)?.folder ?? null) : null;
}

async function remoteEdit(run: SeedRun, profile: SeedProfile): Promise<void> {
  const before = run.webhooks.waiting.length;
  const done = await steeredRemoteEdit(run.chaos, profile);
  const made = run.webhooks.waiting.slice(before);
  run.note(
    `remote edit: ${made.map((h) => `${h.subType} ${h.documentId}`).join(', ') || 'nothing to do'}`,
  );
  if (!done) return;
  run.count(`remote: ${made[0]?.subType ?? 'edit'}`);
  // Most webhooks come at once; the others wait in the queue: late, reordered, or never sent.
  const atOnce = profile.chance('webhooks late', 0.6, 0.2);
  for (const hook of made) {
    if (run.random() < atOnce) {
      run.count('webhook at once');
      await run.deliver(hook, 'at once');
    }
  }
  await run.settle();
}

/**
 * The service's own world changes (service-world.ts); a webhook it makes comes at once, later,
 * or never, as a service user's edit's does.
 */
async function serviceWorld(run: SeedRun): Promise<void> {
  const kind = pick(run.random, SERVICE_WORLD_EDITS);
  const { done, what, hooks } = await serviceWorldEdit(run, kind);
  run.note(`service: ${kind} ${what}${done ? '' : ' (nothing to do)'}`);
  if (!done) return;
  run.count(`service: ${kind}`);
  for (const hook of hooks) {
    if (run.random() < 0.6) {
      run.count('webhook at once');
      await run.deliver(hook, 'at once');
    }
  }
  await run.settle();
}

const STATUS_TYPES_FAIL: FaultOptions = { routes: { '/documents/statusTypes': 503 } };

const FAULTS: readonly (readonly [string, (seed: number) => FaultOptions])[] = [
  ['healed', () => ({})],
  // A failing service fails a write after carrying it out as well as before: then the write is
  // done and its answer lost, a 5xx or a reset instead (docsync's push in doubt).
  ['5xx on 30 % of requests', (seed) => ({ serverError: 0.3, lostAnswer: 0.1, seed })],
  ['connections reset on 20 %', (seed) => ({ reset: 0.2, lostAnswer: 0.1, seed })],
  ['answers lost after 40 % of writes', (seed) => ({ lostAnswer: 0.4, seed })],
  // Retry-After 1 s; the client's retries are not played, so the request fails (a 429 after them).
  ['429 with Retry-After on 20 %', (seed) => ({ tooManyRequests: 0.2, seed })],
  ['half the downloads cut short', (seed) => ({ truncatedDownload: 0.5, seed })],
  [
    'document routes answer 503',
    () => ({
      routes: {
        '/companies/{ownerId}/documents': 503,
        '/companies/{ownerId}/documents/{documentId}': 503,
        '/trusts/{ownerId}/documents': 503,
        '/trusts/{ownerId}/documents/{documentId}': 503,
      },
    }),
  ],
  ['status types answer 503', () => STATUS_TYPES_FAIL],
  [
    'uploads answer 503',
    () => ({
      routes: {
        '/companies/{ownerId}/documents/{documentId}/attachments': 503,
        '/trusts/{ownerId}/documents/{documentId}/attachments': 503,
      },
    }),
  ],
];

function fault(run: SeedRun, profile: SeedProfile): void {
  const label = steeredPick(
    run.random,
    profile,
    'fault: ',
    FAULTS.map(([l]) => [l, 1] as const),
  );
  const make = FAULTS.find(([l]) => l === label)![1];
  run.count(`fault: ${label}`);
  run.faults(make(Math.floor(run.random() * 1e9)), label);
}
