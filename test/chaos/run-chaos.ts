/**
 * One seeded chaos run (style guide §10, issues 8 and 15): a small firm synced once, then rounds
 * of random edits on both sides (some on the same document at once; folders moved away come
 * back when due), each followed by a sync that meets faults, a webhook-style targeted cycle, a
 * `docsync run --once` killed mid-run, or one killed between the two steps of a replace, and
 * checked by the round invariants; then everything away is put back, the service heals, cycles
 * run until one is quiet, and the final invariants are checked. The same seed makes the same
 * edits and faults; the moment a kill lands depends on timing.
 */
import path from 'node:path';
import { expect } from 'vitest';
import type { CycleReport } from '../../src/engine/run-cycle.js';
import { seededRandom } from '../../src/simulator/random.js';
import type { HarnessOptions, SyncHarness } from '../helpers/sync-harness.js';
import { AwayBook } from './away-book.js';
import { bringBack } from './away-edits.js';
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
import { replaceKilledRun } from './replace-kill.js';
import { expectRoundInvariants, serviceBefore } from './round-invariants.js';

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
  try {
    for (let round = 0; round < rounds; round++)
      await playRound(world, round, config, deletedByOwner);
    await settle(world);
  } catch (error) {
    // The story of the moves and deletions, to start a diagnosis from.
    console.error(`chaos seed=${seed}: what happened\n${world.ledger.story.join('\n')}`);
    throw error;
  }
  return world.ledger.summary(seed, rounds, performance.now() - began);
}

async function playRound(
  world: ChaosWorld,
  round: number,
  config: string,
  deletedByOwner: Map<string, Set<string>>,
): Promise<void> {
  const { h, ledger } = world;
  world.away.round = round;
  ledger.note(`round ${round}`);
  const before = (await h.remote()).documents;
  bringBack(world, false);
  await edits(world);
  const after = new Set((await h.remote()).documents.map((d) => d.id));
  for (const doc of before.filter((d) => !after.has(d.id))) {
    const key = `${doc.owner.kind}:${doc.owner.id}`;
    deletedByOwner.set(key, new Set([...(deletedByOwner.get(key) ?? []), doc.id]));
  }
  const service = await serviceBefore(h, ledger);
  const mode = world.random();
  if (mode < 0.4) {
    ledger.note('  sync: cycles against a faulty service');
    await faultyCycles(world);
  } else if (mode < 0.58) {
    ledger.note('  sync: a targeted cycle');
    await targetedCycle(world, deletedByOwner);
  } else if (mode < 0.85) {
    ledger.note('  sync: docsync run --once, killed at random');
    await killedChildRuns(world, config);
  } else {
    ledger.note('  sync: docsync run --once, killed after an upload');
    await replaceKilledRun(world, config);
  }
  await expectRoundInvariants(h, ledger, service, `seed ${world.seed} round ${round}`);
}

/** Everything away comes back, the service heals, and cycles run until one is quiet. */
async function settle(world: ChaosWorld): Promise<void> {
  const { h, ledger, seed } = world;
  ledger.note('settling: everything away put back, no faults');
  bringBack(world, true);
  h.sim.admin.setFaults({});
  takeFaultCount(h, ledger);
  const service = await serviceBefore(h, ledger);
  let settled = 0;
  let last: CycleReport | undefined;
  for (; settled < SETTLE_CYCLES; settled++) {
    ledger.counts.cycles++;
    last = await h.sync();
    if (last.result === 'ok' && last.actions === 0) break;
  }
  await expectRoundInvariants(h, ledger, service, `seed ${seed} settling`);
  const problems = h.state.problems.list().map((p) => `${p.path ?? p.key}: ${p.reason}`);
  expect(
    settled,
    `cycles to settle (seed ${seed}); last: ${JSON.stringify(last)}; problems: ${problems.join('; ')}`,
  ).toBeLessThan(SETTLE_CYCLES);
  await expectChaosInvariants(h, ledger);
  ledger.counts.cycles++;
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
    // Beside the root, outside the store: where users park what they move away.
    away: new AwayBook(path.join(path.dirname(h.root), 'away')),
  };
}

/** A round's edits: some local, some remote, and maybe both sides at once on one document. */
async function edits(world: ChaosWorld): Promise<void> {
  const { random, ledger } = world;
  const locals = Math.floor(random() * 4);
  for (let i = 0; i < locals; i++) if (await randomLocalEdit(world)) ledger.edit('local');
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
  if (await randomLocalEdit(world, doc)) ledger.edit('local');
  if (await randomRemoteEdit(world, doc.id)) ledger.edit('remote');
}
