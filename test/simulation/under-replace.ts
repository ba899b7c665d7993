/**
 * A service user removes the new content of a replace while its sync waits between its two
 * steps (docs/simulation.md, "What a seed may do"): the upload is done, the old attachment not
 * yet deleted (the `between-upload-and-delete` failpoint). Someone in the firm removes the new
 * file in the web app, and the server often goes down right after: the restart's settlement
 * finds the replace in doubt and its upload gone. Only the step the replace noted says the
 * upload was made; without it, the settlement takes the replace as never sent, and the plan
 * uploads the person's bytes again: what a service user removed comes back (invariant 12).
 */
import { pick } from '../../src/simulator/random.js';
import type { Parked } from './park-board.js';
import type { SeedRun } from './seed-run.js';

/** Syncs parked in a content replace, its upload done and the old attachment not yet deleted. */
function replacesHalfway(run: SeedRun): Parked[] {
  return run.parked.filter(
    (p) => p.step === 'between-upload-and-delete' && p.site.documentId != null,
  );
}

/** The weight of a service user's removal of a replace's new content: none outside the window. */
export const removeUnderReplaceWeight = (run: SeedRun): number =>
  replacesHalfway(run).length > 0 ? 4 : 0;

/**
 * A service user deletes the document's newest user attachment (the replace's upload: ids grow),
 * its webhook at once or queued; then, more often than not, the server goes down. False if the
 * document is gone from the service or has no user attachment.
 */
export async function removeUnderReplace(run: SeedRun): Promise<boolean> {
  const item = pick(run.random, replacesHalfway(run));
  const documentId = item.site.documentId!;
  const doc = (await run.view.remote()).documents.find((d) => d.id === documentId);
  const newest =
    doc &&
    run.view.sim.admin
      .attachments(documentId)
      .filter((a) => !a.system)
      .at(-1);
  const sha = doc?.attachments.find((a) => a.id === newest?.id)?.sha256;
  run.note(
    `service user, under a replace (${item.label}): ${newest ? `${newest.name} deleted` : 'nothing to delete'}`,
  );
  if (!newest || !sha) return false;
  const before = run.webhooks.waiting.length;
  run.view.sim.admin.deleteAttachment(documentId, newest.id);
  run.ledger.deleted(sha);
  run.count('under a replace: its upload deleted');
  for (const hook of run.webhooks.waiting.slice(before))
    if (run.random() < 0.6) {
      run.count('webhook at once');
      await run.deliver(hook, 'at once');
    }
  await run.settle();
  if (run.world.running && run.random() < 0.7) {
    run.count('crash (after an upload deleted under a replace)');
    await run.crash();
  }
  return true;
}
