/**
 * One seeded chaos run (style guide §10, issue 8): a small firm synced once, then rounds of
 * random edits on both sides (some on the same document at once), each followed by a sync that
 * meets faults, a webhook-style targeted cycle, or a `docsync run --once` killed mid-run; then
 * the service heals, cycles run until one is quiet, and the invariants are checked. The same
 * seed makes the same edits and faults; the moment a kill lands depends on timing.
 */
import { expect } from 'vitest';
import { seededRandom } from '../../src/simulator/random.js';
import type { HarnessOptions, SyncHarness } from '../helpers/sync-harness.js';
import { expectChaosInvariants } from './chaos-invariants.js';
import { ChaosLedger } from './chaos-ledger.js';
import {
  childConfig,
  faultyCycles,
  killedChildRuns,
  LINK_TTL_SECONDS,
  takeFaultCount,
  targetedCycle,
} from './chaos-sync.js';
import { type ChaosWorld, localDocs, localEdits, randomLocalEdit } from './local-edits.js';
import { randomRemoteEdit, remoteEdits } from './remote-edits.js';

export interface ChaosOptions {
  readonly seed: number;
  readonly rounds: number;
}

/** Cycles allowed for the healed service to bring both sides in step. */
const SETTLE_CYCLES = 5;

export async function runChaos(
  start: (options?: HarnessOptions) => Promise<SyncHarness>,
  { seed, rounds }: ChaosOptions,
): Promise<string> {
  const began = performance.now();
  const h = await start({
    seed: { companies: 2, trusts: 1, documentsPerEntity: 3, attachmentsPerDocument: 2, seed },
    sim: { linkTtlSeconds: LINK_TTL_SECONDS },
    // Random deletes easily pass 50 % of a three-document entity; the rails have their own tests.
    settings: { maxDeletePercent: 100, maxDeleteCount: 1000 },
  });
  expect((await h.sync()).result).toBe('ok');
  const world = await makeWorld(h, seed);
  const config = childConfig(h);
  const deletedByOwner = new Map<string, Set<string>>();
  for (let round = 0; round < rounds; round++) {
    const before = (await h.remote()).documents;
    await edits(world);
    const after = new Set((await h.remote()).documents.map((d) => d.id));
    for (const doc of before.filter((d) => !after.has(d.id))) {
      const key = `${doc.owner.kind}:${doc.owner.id}`;
      deletedByOwner.set(key, new Set([...(deletedByOwner.get(key) ?? []), doc.id]));
    }
    const mode = world.random();
    if (mode < 0.45) await faultyCycles(world);
    else if (mode < 0.65) await targetedCycle(world, deletedByOwner);
    else await killedChildRuns(world, config);
  }

  h.sim.admin.setFaults({});
  takeFaultCount(h, world.ledger);
  let settled = 0;
  for (; settled < SETTLE_CYCLES; settled++) {
    world.ledger.counts.cycles++;
    const report = await h.sync();
    if (report.result === 'ok' && report.actions === 0) break;
  }
  expect(settled, `cycles to settle (seed ${seed})`).toBeLessThan(SETTLE_CYCLES);
  await expectChaosInvariants(h, world.ledger);
  world.ledger.counts.cycles++;
  return world.ledger.summary(seed, rounds, performance.now() - began);
}

async function makeWorld(h: SyncHarness, seed: number): Promise<ChaosWorld> {
  const dump = await h.remote();
  const owners = await h.owners();
  const keepers = new Set<string>();
  for (const owner of owners) {
    const first = dump.documents.find(
      (d) => d.owner.kind === owner.kind && d.owner.id === owner.id,
    );
    if (first) keepers.add(first.id);
  }
  return {
    h,
    random: seededRandom(seed),
    ledger: new ChaosLedger(),
    seed,
    keepers,
    statusNames: dump.statusTypes.map((t) => t.name),
    entityFolders: owners.map((owner) => h.entityFolder(owner)),
  };
}

/** A round's edits: some local, some remote, and maybe both sides at once on one document. */
async function edits(world: ChaosWorld): Promise<void> {
  const { random, ledger } = world;
  const locals = Math.floor(random() * 4);
  for (let i = 0; i < locals; i++) if (randomLocalEdit(world)) ledger.edit('local');
  const remotes = Math.floor(random() * 4);
  for (let i = 0; i < remotes; i++) if (await randomRemoteEdit(world)) ledger.edit('remote');
  if (random() < 0.5) await conflictingEdits(world);
}

async function conflictingEdits(world: ChaosWorld): Promise<void> {
  const { h, random, ledger } = world;
  const remoteIds = new Set((await h.remote()).documents.map((d) => d.id));
  const both = localDocs(h).filter((d) => remoteIds.has(d.id));
  if (both.length === 0) return;
  const doc = both[Math.floor(random() * both.length)]!;
  ledger.counts.conflicts++;
  if (random() < 0.3) {
    // The same new name on both sides, different bytes (rows 42, 43).
    const name = `clash ${ledger.serial()}.pdf`;
    localEdits.newFile(world, doc, name);
    const remote = (await h.remote()).documents.find((d) => d.id === doc.id)!;
    remoteEdits.addAttachment(world, remote, name);
    ledger.edit('local');
    ledger.edit('remote');
    return;
  }
  if (randomLocalEdit(world, doc)) ledger.edit('local');
  if (await randomRemoteEdit(world, doc.id)) ledger.edit('remote');
}
