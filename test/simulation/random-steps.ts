/**
 * The random driver of a seed: at each step, with everything else parked or done, the seed
 * picks one thing to happen, weighted: a parked sync goes on, time passes, or (while the seed
 * has injections left) the world changes under the daemon: a local edit, a service user's edit
 * (its webhook sent at once, later, twice or never), an operator's decision, a fault of the
 * service or of the folder's disk (local-world-steps.ts), a crash. Each seed's daemon is set up
 * as seed-settings.ts draws it.
 * The edits are the chaos suite's generators (test/chaos/local-edits.ts, remote-edits.ts).
 */
import type { FaultOptions } from '../../src/simulator/index.js';
import { pick } from '../../src/simulator/random.js';
import { localDocs, localEdits } from '../chaos/local-edits.js';
import { randomRemoteEdit } from '../chaos/remote-edits.js';
import { lastLook, localWorldSteps } from './local-world-steps.js';
import { type SeedOutcome, type SeedPlan, SeedRun } from './seed-run.js';
import { withSeedSettings } from './seed-settings.js';

type Step = readonly [weight: number, run: () => Promise<void>];

export async function runRandomSeed(seed: number, plan: SeedPlan): Promise<SeedOutcome> {
  const run = await SeedRun.start(seed, withSeedSettings(seed, plan));
  run.lastLook = () => lastLook(run);
  try {
    let injections = plan.injections;
    while (injections > 0 && run.steps < plan.maxSteps) {
      run.steps++;
      const steps = choices(run, () => injections--);
      await weighted(run, steps)();
    }
    return await run.finish();
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

function choices(run: SeedRun, spend: () => void): Step[] {
  const steps: Step[] = [];
  const inject = (weight: number, kind: string | null, act: () => Promise<void>) =>
    steps.push([
      weight,
      () => {
        spend();
        if (kind) run.count(kind);
        return act();
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
  if (run.parked.length > 0) steps.push([6, () => run.release(pick(run.random, run.parked))]);
  steps.push([1.5, () => run.advance(pick(run.random, [1000, 5000, 30_000, 300_000]))]);
  if (run.chaos.entityFolders.length > 0) inject(1.2, null, () => localEdit(run));
  inject(1.2, null, () => remoteEdit(run));
  const { waiting, sent } = run.webhooks;
  if (waiting.length > 0)
    counted(1.2, 'webhook late', () => run.deliver(pick(run.random, waiting), 'late'));
  if (sent.length > 0)
    counted(0.3, 'webhook again', () => run.deliver(pick(run.random, sent), 'again'));
  localWorldSteps(run, inject);
  inject(0.4, null, async () => fault(run));
  if (run.world.running) inject(0.15, 'crash', () => run.crash());
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
] as const;

async function localEdit(run: SeedRun): Promise<void> {
  const world = run.chaos;
  const docs = localDocs(run.view);
  // A folder made before the first sync ended is one the firm had: held until a person adopts
  // it (`--adopt-local`), never pushed on its own (daemon.md). Later, it is a new document.
  const firstSyncDone = run.world.running && run.world.life.state.settings.initialSyncDone();
  const kinds = firstSyncDone ? LOCAL_EDITS : LOCAL_EDITS.filter((k) => k !== 'new folder');
  const kind = pick(run.random, kinds);
  const doc = docs.length > 0 ? pick(run.random, docs) : null;
  if (!doc && kind !== 'new folder') {
    run.note(`local edit: ${kind} (no document folder yet)`);
    return;
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
      done = localEdits.deleteFolder(world, doc!);
      break;
    case 'renamed folder':
      done = localEdits.renameFolder(world, doc!);
      break;
  }
  run.note(
    `local edit: ${kind} ${doc && kind !== 'new folder' ? doc.folder : ''}${done ? '' : ' (nothing to do)'}`,
  );
  if (done) run.count(`local: ${kind}`);
  await run.settle();
}

async function remoteEdit(run: SeedRun): Promise<void> {
  const before = run.webhooks.waiting.length;
  const done = await randomRemoteEdit(run.chaos);
  const made = run.webhooks.waiting.slice(before);
  run.note(
    `remote edit: ${made.map((h) => `${h.subType} ${h.documentId}`).join(', ') || 'nothing to do'}`,
  );
  if (!done) return;
  run.count(`remote: ${made[0]?.subType ?? 'edit'}`);
  // Most webhooks come at once; the others wait in the queue: late, reordered, or never sent.
  for (const hook of made) {
    if (run.random() < 0.6) {
      run.count('webhook at once');
      await run.deliver(hook, 'at once');
    }
  }
  await run.settle();
}

const FAULTS: readonly (readonly [string, (seed: number) => FaultOptions])[] = [
  ['healed', () => ({})],
  ['5xx on 30 % of requests', (seed) => ({ serverError: 0.3, seed })],
  ['connections reset on 20 %', (seed) => ({ reset: 0.2, seed })],
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

function fault(run: SeedRun): void {
  const [label, make] = pick(run.random, FAULTS);
  run.count(`fault: ${label}`);
  run.faults(make(Math.floor(run.random() * 1e9)), label);
}
