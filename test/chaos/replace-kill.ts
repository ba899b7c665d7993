/**
 * A kill between the two steps of a content replace (issue 15, case 3; the crash test's
 * approach): a user attachment's content is replaced in the folder, then `docsync run --once`
 * runs in a child with every answer slowed, and is SIGKILLed as soon as the service has answered
 * an upload. The new content is then up and, when that upload was the replace's, the old
 * attachment not yet deleted (copying it to the trash takes two more slow answers). The runs
 * that follow must finish the replace: never both versions left in the service, never the old
 * content pulled back as `name (2).ext`.
 */
import { pick } from '../../src/simulator/random.js';
import { runOnceKilledWhen, uploadsServed } from '../helpers/killed-run.js';
import { sha256 } from '../helpers/sync-harness.js';
import type { ChaosReplace } from './chaos-ledger.js';
import { afterKill, takeFaultCount } from './chaos-sync.js';
import { type ChaosWorld, content, localDocs } from './local-edits.js';

/**
 * Added to every answer: the gap between the upload and the delete is then at least two
 * answers long (the old copy's link, its download), far longer than the 1 ms kill poll.
 */
const LATENCY_MS = 40;

export async function replaceKilledRun(world: ChaosWorld, config: string): Promise<void> {
  const { h, ledger } = world;
  const replaced = await replaceSyncedFile(world);
  h.sim.admin.setFaults({ latencyMs: LATENCY_MS, seed: Math.floor(world.random() * 1e9) });
  takeFaultCount(h, ledger);
  const run = await runOnceKilledWhen(h, config, () => uploadsServed(h) > 0);
  h.sim.admin.setFaults({});
  takeFaultCount(h, ledger);
  ledger.counts.childRuns++;
  ledger.counts.cycles++;
  if (!run.killed) {
    if (run.code !== 0 && run.code !== 3)
      throw new Error(`docsync exited ${run.code}: ${run.stderr}`);
    return;
  }
  afterKill(world);
  ledger.counts.replaceKills++;
  if (!replaced) return;
  const doc = await h.remoteDoc(replaced.documentId);
  const shas = new Set(doc?.attachments.map((a) => a.sha256));
  if (!shas.has(replaced.oldSha) || !shas.has(replaced.newSha)) return;
  ledger.counts.replaceGaps++;
  ledger.note(`  killed between the steps of that replace`);
}

/**
 * Replaces the content of a user attachment that both sides agree on (the folder's file, its
 * `.document.json` entry and the service's attachment hold the same bytes), so the next run
 * pushes a replace (row 31). Null when no document has one.
 */
async function replaceSyncedFile(world: ChaosWorld): Promise<ChaosReplace | null> {
  const { h, ledger } = world;
  const remote = new Map((await h.remote()).documents.map((d) => [d.id, d]));
  const candidates = localDocs(h).flatMap((doc) => {
    const service = remote.get(doc.id);
    if (!service || world.away.documentAway(doc.id)) return [];
    return h
      .meta(doc.folder)
      .attachments.filter(
        (a) =>
          a.kind === 'user' &&
          doc.files.get(a.file) === a.sha256 &&
          service.attachments.some((s) => s.id === a.id && s.sha256 === a.sha256),
      )
      .map((a) => ({ doc, file: a.file, oldSha: a.sha256 }));
  });
  if (candidates.length === 0) return null;
  const { doc, file, oldSha } = pick(world.random, candidates);
  const text = content(world, 'replaced before a kill');
  h.write(`${doc.folder}/${file}`, text);
  ledger.wrote(sha256(text), `local ${doc.folder}/${file}`);
  ledger.deleted(oldSha);
  ledger.edit('local');
  const replace = { documentId: doc.id, file, oldSha, newSha: sha256(text) };
  ledger.replaces.push(replace);
  ledger.note(`  ${doc.folder}/${file} replaced, then a kill after an upload`);
  return replace;
}
