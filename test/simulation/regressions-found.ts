/**
 * Bugs the simulation and the chaos suite found after issue 25, each as a scripted scenario of
 * the simulation (the same world, steps and invariants as a random seed, each step chosen):
 * a seed whose trace no longer replays on today's code, a chaos run whose kills depended on
 * timing, and windows random seeds never reach (a crash at one exact failpoint). On the code
 * before their fixes each fails (docs/simulation.md lists what each finds).
 */
import { mkdirSync, renameSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { taggedName } from '../../src/domain/file-names.js';
import type { OwnerRef } from '../../src/domain/types.js';
import { DEFAULT_STATUS_NAME } from '../../src/simulator/document-ops.js';
import { content, type LocalDoc, localDocs, localEdits } from '../chaos/local-edits.js';
import { expectInSync } from '../helpers/sync-assertions.js';
import { sha256 } from '../helpers/sync-harness.js';
import { awayEdit, moveEntity, undo } from './away-steps.js';
import { DISK_FAULTS } from './disk-faults.js';
import { pageResolve } from './operator-steps.js';
import { deleteFolderKept, putBackFromBin } from './recycle-bin.js';
import {
  at,
  DELETE_DUE_MS,
  deletedLocally,
  deleteInService,
  deliverAll,
  keptEditOfSystemForm,
  releaseUntil,
  type Scenario,
  SMALL,
  serviceDoc,
  settleWatcher,
  statusConflict,
  synced,
  TWO_COMPANIES,
} from './scenario-steps.js';
import type { SeedRun } from './seed-run.js';
import { entityGone } from './service-world.js';

/** The entity folder moved out of the root, a link to it left in its place. */
function linkedAway(run: SeedRun, folder: string): void {
  const { away } = run.chaos;
  mkdirSync(away.scratch, { recursive: true });
  const parked = path.join(away.scratch, `entity ${run.ledger.serial()}`);
  const at = path.join(run.view.root, folder);
  renameSync(at, parked);
  symlinkSync(parked, at);
  away.entities.push({ folder, parked, link: true, due: 0 });
  run.note(`  ${folder} moved to ${parked}, a link left`);
}

/** Every document route answers 503 (the lists too when `lists`), the rest works. */
function detailsFail(run: SeedRun, lists: boolean): void {
  const routes: Record<string, number> = {
    '/companies/{ownerId}/documents/{documentId}': 503,
    '/trusts/{ownerId}/documents/{documentId}': 503,
  };
  if (lists) {
    routes['/companies/{ownerId}/documents'] = 503;
    routes['/trusts/{ownerId}/documents'] = 503;
  }
  run.faults({ routes }, `the document${lists ? ' lists and' : "'s"} details answer 503`);
}

/** A service user adds a user attachment under this name; its webhook waits in the queue. */
function serviceAdds(run: SeedRun, documentId: string, name: string): string {
  const bytes = content(run.chaos, 'remote user');
  run.view.sim.admin.addAttachment(documentId, { name, bytes, system: false });
  run.ledger.wrote(sha256(bytes), `remote ${documentId}/${name}`);
  return sha256(bytes);
}

export const FOUND_SCENARIOS: readonly Scenario[] = [
  {
    name: 'seed 31122',
    title:
      "a file pulled just before a crash is uploaded again as new when, after the restart, the document's details cannot be read",
    plan: SMALL,
    play: async (run) => {
      const { doc } = await synced(run);
      serviceAdds(run, doc.id, 'remote 5.pdf');
      // The webhook's sync places the file and stops before its commit; the daemon dies there.
      run.parkAt = (step, site) => step === 'before-commit' && site.what === 'pull-attachment';
      for (const hook of [...run.webhooks.waiting]) await run.deliver(hook, 'at once');
      await releaseUntil(run, at('before-commit'), 'the pull placed, its commit not made');
      run.parkAt = () => false;
      if (!run.view.exists(`${doc.folder}/remote 5.pdf`))
        throw new Error('the scenario expected the pulled file in the folder');
      await run.crash();
      // The restarted daemon lists the document as changed, and cannot read its details.
      detailsFail(run, false);
      await run.drain();
      const unread = run.world.life.state.problems
        .list()
        .some((p) => p.documentId === doc.id && p.reason.startsWith('reading the document failed'));
      if (!unread) throw new Error("the scenario expected the document's details unread");
      const sentBack = run.ledger.serviceWrites.some(
        (w) => w.write.kind === 'upload-attachment' && w.write.fileName === 'remote 5.pdf',
      );
      if (sentBack)
        run.ledger.found(
          'a document is not planned without its details',
          'remote 5.pdf, pulled before the crash, was uploaded as a new file while the details could not be read',
        );
      run.faults({}, 'healed');
      await run.drain();
    },
    expectInTrace: ['parked: before-commit', 'crash'],
  },
  {
    name: 'seed 547',
    title:
      'an attachment the service added under a name the document has is pulled as `name (2)`; a crash before its commit: after the restart the placed file reads as a new local file and is uploaded, two attachments of the same bytes',
    plan: SMALL,
    play: async (run) => {
      const { doc } = await synced(run);
      const [name] = doc.files.keys();
      if (!name) throw new Error('the scenario needs a document with a file');
      serviceAdds(run, doc.id, name);
      // Row 44: the webhook's sync places the new attachment as `name (2)` and stops before its
      // commit; the daemon dies there.
      run.parkAt = (step, site) => step === 'before-commit' && site.what === 'pull-attachment';
      for (const hook of [...run.webhooks.waiting]) await run.deliver(hook, 'at once');
      await releaseUntil(run, at('before-commit'), 'the pull placed, its commit not made');
      run.parkAt = () => false;
      const placed = `${doc.folder}/${taggedName(name, '2')}`;
      if (!run.view.exists(placed)) throw new Error(`the scenario expected ${placed} placed`);
      await run.crash();
      await run.drain();
    },
    expectInTrace: ['parked: before-commit', 'crash'],
  },
  {
    name: 'seed 996',
    title:
      'the same as seed 547, and the service removes the attachment that held the name before the restart: the name is free, so the placed `name (2)` is uploaded as new',
    plan: SMALL,
    play: async (run) => {
      const { doc } = await synced(run);
      const [name] = doc.files.keys();
      if (!name) throw new Error('the scenario needs a document with a file');
      const added = serviceAdds(run, doc.id, name);
      run.parkAt = (step, site) => step === 'before-commit' && site.what === 'pull-attachment';
      for (const hook of [...run.webhooks.waiting]) await run.deliver(hook, 'at once');
      await releaseUntil(run, at('before-commit'), 'the pull placed, its commit not made');
      run.parkAt = () => false;
      await run.crash();
      // A service user removes the attachment that held the name: the new one's name is free.
      const held = (await serviceDoc(run, doc.id)).attachments.find(
        (a) => a.name === name && a.sha256 !== added,
      );
      if (!held) throw new Error('the scenario expected the first attachment in the service');
      run.view.sim.admin.deleteAttachment(doc.id, held.id);
      run.ledger.deleted(held.sha256);
      await deliverAll(run);
    },
    expectInTrace: ['parked: before-commit', 'crash'],
  },
  {
    name: 'seed 337',
    title:
      "a status typed in the folder loses to a later one set in the service (row 24); the daemon crashes after the folder shows the service's status and before the conflict is recorded: the person's status is nowhere",
    plan: SMALL,
    play: async (run) => {
      const { doc, types } = await synced(run);
      run.view.editMeta(doc.folder, (meta) => ({ ...meta, status: types[0]!.name }));
      run.clock.pass(60_000);
      run.view.sim.admin.assignStatus(doc.id, { typeId: types[1]!.id });
      // The webhook's sync pulls the service's status over the folder's, and stops before its
      // commit; the daemon dies there.
      run.parkAt = (step, site) => step === 'before-commit' && site.what === 'pull-status';
      for (const hook of [...run.webhooks.waiting]) await run.deliver(hook, 'at once');
      await releaseUntil(run, at('before-commit'), 'the status pulled, its commit not made');
      run.parkAt = () => false;
      await run.crash();
      await settleWatcher(run);
    },
    expectInTrace: ['parked: before-commit', 'crash'],
  },
  {
    name: 'row 56, a held delete',
    title:
      'a folder\'s delete waiting its hold time is forgotten ("back in the store") by a sync that could not read the document\'s details',
    plan: SMALL,
    play: async (run) => {
      const { doc } = await deletedLocally(run);
      const waiting = () =>
        run.world.life.state.heldDeletes.list().some((h) => h.documentId === doc.id);
      if (!waiting()) throw new Error('the scenario expected the delete waiting its hold time');
      // A service user changes the document; the sync that lists it cannot read its details.
      serviceAdds(run, doc.id, 'added meanwhile.pdf');
      detailsFail(run, false);
      await deliverAll(run);
      if (!waiting())
        run.ledger.found(
          'a delete waiting its hold time stands while the document cannot be read',
          `the delete of ${doc.folder} was dropped by a sync that did not plan the document`,
        );
      // Once read, the service's change beats the folder's delete (row 9).
      run.faults({}, 'healed');
      await run.advance(65_000);
      run.requestRound(false);
      await run.drain();
    },
  },
  {
    name: 'chaos 77341',
    title:
      "a document with a kept `(local edit)` copy of its system form is re-created from its folder (the service deleted it), and the folder is renamed: the chaos suite's check of both sides leaves the copy out of the folder's files, though it is now an ordinary file, uploaded",
    plan: SMALL,
    play: async (run) => {
      const { doc } = await keptEditOfSystemForm(run);
      // The service deletes the document: the kept edit beats the delete (row 12), and the
      // document is made again under a new id, where the form is an ordinary attachment.
      await deleteInService(run, doc.id);
      await deliverAll(run);
      const entity = doc.folder.slice(0, doc.folder.lastIndexOf('/'));
      const renamed = `${entity}/Renamed ${doc.name}`;
      run.view.rename(doc.folder, renamed);
      await settleWatcher(run);
      if (run.view.meta(renamed).id === doc.id)
        throw new Error('the scenario expected the document made again under a new id');
      run.requestRound(true);
      await run.drain();
      // The chaos suite's own check of both sides, as its final settle makes it.
      await expectInSync(run.view).catch((error: unknown) =>
        run.ledger.found(
          'both sides hold the same documents (the chaos suite)',
          (error as Error).message.split('\n')[0] ?? '',
        ),
      );
    },
  },
  {
    name: 'seed 3598',
    title:
      "a person edits a system form (kept beside it as its `(local edit)` copy), then edits that copy: the copy stays the person's, in the folder only, yet the end held its new bytes to both sides, as an ordinary file's",
    plan: SMALL,
    play: async (run) => {
      const { kept } = await keptEditOfSystemForm(run);
      // The copy's bytes are the person's own earlier edit: overwritten, theirs to lose.
      const old = run.view.tree().get(kept);
      if (old) run.ledger.deleted(old);
      const edit = content(run.chaos, 'edited copy');
      run.view.write(kept, edit);
      run.ledger.wrote(sha256(edit), `local ${kept}`);
      run.note(`local edit: replaced file ${kept}`);
      await settleWatcher(run);
      await run.advance(300_000);
      run.requestRound(true);
      await run.drain();
      const uploaded = (await run.view.remote()).documents.some((d) =>
        d.attachments.some((a) => a.sha256 === sha256(edit)),
      );
      if (uploaded) throw new Error("the scenario expected the copy's edit kept in the folder");
    },
  },
  {
    name: 'crash in a re-create',
    title:
      "a document re-created from its folder (the service deleted it, the folder changed): a crash after the folder names the new document and before its commit, and the service deletes that one too: the folder names a document nobody knows, and the person's new file is never synced",
    plan: SMALL,
    play: async (run) => {
      const { doc } = await synced(run);
      await deleteInService(run, doc.id);
      const text = content(run.chaos, 'new local');
      run.view.write(`${doc.folder}/new.txt`, text);
      run.ledger.wrote(sha256(text), `local ${doc.folder}/new.txt`);
      // Modify beats delete (row 12): the sync creates the document again and writes its new id
      // into the folder; the daemon dies before the commit.
      run.parkAt = (step, site) => step === 'before-commit' && site.what === 'create-document';
      for (const hook of [...run.webhooks.waiting]) await run.deliver(hook, 'at once');
      await releaseUntil(run, at('before-commit'), 'the create answered, its commit not made');
      run.parkAt = () => false;
      const created = run.view.meta(doc.folder).id;
      if (created === doc.id)
        throw new Error('the scenario expected the folder to name the new id');
      await run.crash();
      // Before the restarted daemon settles the create, a service user deletes the new document.
      await deleteInService(run, created);
      await deliverAll(run);
      await settleWatcher(run);
    },
    expectInTrace: ['parked: before-commit', 'crash'],
  },
  {
    name: 'seed 5010',
    title:
      "a status a person typed is pushed by a sync planned before a service user set another, newer status: the service user's status is overwritten, and no conflict says so",
    plan: SMALL,
    play: async (run) => {
      const { doc, types } = await synced(run);
      run.view.editMeta(doc.folder, (meta) => ({ ...meta, status: types[0]!.name }));
      // The watcher's sync plans the push, and waits there.
      run.parkAt = (step) => step === 'entity-planned';
      await run.advance(5_000);
      await releaseUntil(run, at('entity-planned'), 'the push of the typed status planned');
      run.parkAt = () => false;
      // A minute later a service user sets another status: the newer change, which must win.
      run.clock.pass(60_000);
      run.view.sim.admin.assignStatus(doc.id, { typeId: types[1]!.id });
      await run.drain();
      await deliverAll(run);
    },
    expectInTrace: ['parked: entity-planned'],
  },
  {
    name: 'seed 934',
    title:
      "a status typed in the folder and one a service user sets in the same instant: the folder's reads as newer (row 23) and is pushed, and the push's answer is lost; the push, settled as carried out, records no conflict, so the service user's status is overwritten unsaid",
    plan: SMALL,
    play: async (run) => {
      const { doc, types } = await synced(run);
      run.clock.pass(60_000);
      // The person first, the service user just after, in one millisecond: the folder's edit
      // (its mtime a millisecond on) reads as the newer change, and the service's is overwritten.
      run.view.editMeta(doc.folder, (meta) => ({ ...meta, status: types[0]!.name }));
      run.view.sim.admin.assignStatus(doc.id, { typeId: types[1]!.id });
      run.view.sim.admin.loseNextAnswer('POST', '/documents/{documentId}/statuses');
      run.note('service: the answer of the next status push will be lost');
      await deliverAll(run);
    },
    expectInTrace: ['the service carried out assign-status and lost its answer'],
  },
  {
    name: 'unheard crash',
    title:
      'a decision on the status page, waiting for its entity, is cut by a crash: its promise rejects with nobody to hear it, and the run fails without naming a seed',
    plan: SMALL,
    play: async (run) => {
      const { doc, types } = await synced(run);
      const conflict = await statusConflict(run, doc, types);
      await pageResolve(run, conflict, 'keep-mine');
      if (!run.parked.some((p) => p.kind === 'operator'))
        throw new Error("the scenario expected the page's decision parked");
      await run.crash();
      await run.drain();
    },
    expectInTrace: ['page: no answer, the daemon crashed'],
  },
  {
    name: 'seed 34',
    title:
      "a webhook tells of a change in a company that the service deletes before the event is worked on: the company's sync fails on every try (its list answers 404), and after twenty tries over hours the event is given up as failed",
    plan: TWO_COMPANIES,
    play: async (run) => {
      const { doc } = await synced(run);
      const { owner } = await serviceDoc(run, doc.id);
      serviceAdds(run, doc.id, 'added.pdf');
      const gone = await entityGone(run, await run.view.remote(), owner, 'deleted');
      run.note(`service: entity deleted ${gone.what}`);
      await deliverAll(run);
    },
    expectInTrace: ['service: entity deleted', 'webhook at once: newAttachment'],
  },
  {
    name: 'seed 188',
    title:
      "a signed but wrong deleteDocument webhook names a document the service still has and the listing since the cursor does not show: the sync finds it alive and keeps the details' whole-second change time, which only the next full round put right (the list's microseconds), a change no poll round could make",
    plan: SMALL,
    play: async (run) => {
      const { doc } = await synced(run);
      const alive = await serviceDoc(run, doc.id);
      run.service.watch(alive, 'named by a wrong deleteDocument');
      run.webhooks.queue(alive.owner, alive.id, 'deleteDocument', true);
      run.note(`service: wrong deleteDocument webhook ${alive.id}`);
      await deliverAll(run);
    },
    expectInTrace: ['webhook at once: deleteDocument'],
  },
  {
    name: 'page decision on a failing disk',
    title:
      "a conflict resolved on the status page while the folder refuses changes (EACCES): the page's action rejects, the status server answers a bare 500, and the page's script, reading JSON, tells the person the daemon did not answer",
    plan: SMALL,
    play: async (run) => {
      const { doc, types } = await synced(run);
      const conflict = await statusConflict(run, doc, types);
      run.disk.set(READ_ONLY);
      run.note('disk: the folder read-only');
      await pageResolve(run, conflict, 'keep-mine');
      await run.drain();
      // Mended, the person tries again, and the status they kept reaches the service.
      run.disk.set(null);
      run.note('disk: healed');
      await pageResolve(run, conflict, 'keep-mine');
      await run.drain();
    },
    expectInTrace: ['page: failed', 'page: done'],
  },
  {
    name: 'seed 179',
    title:
      "a file changed on both sides, the folder's newer (row 43): the service's version is placed as the conflict copy and the daemon dies before the commit; the next sync places a second copy and uploads the first",
    plan: SMALL,
    play: async (run) => {
      const { doc } = await synced(run);
      const service = await serviceDoc(run, doc.id);
      const old = service.attachments.find((a) => doc.files.get(a.name) === a.sha256);
      if (!old) throw new Error('the scenario needs a file agreed on both sides');
      // A service user replaces the attachment, then the person replaces the file: theirs is older.
      run.ledger.deleted(old.sha256);
      run.view.sim.admin.deleteAttachment(doc.id, old.id);
      serviceAdds(run, doc.id, old.name);
      run.clock.pass(1000);
      const ours = content(run.chaos, 'local both');
      run.view.write(`${doc.folder}/${old.name}`, ours);
      run.ledger.wrote(sha256(ours), `local ${doc.folder}/${old.name}`);
      run.parkAt = (step, site) => step === 'before-commit' && site.what === 'pull-attachment';
      await run.advance(5_000);
      await releaseUntil(run, at('before-commit'), 'the copy placed, its commit not made');
      run.parkAt = () => false;
      await run.crash();
      await deliverAll(run);
      await settleWatcher(run);
      if (!run.world.life.state.conflicts.list(10).some((c) => c.documentId === doc.id))
        run.ledger.found(
          'every conflict is recorded',
          `the conflict over ${old.name} is not recorded once its copy is settled`,
        );
    },
    expectInTrace: ['parked: before-commit', 'crash'],
  },
  {
    name: 'seed 52',
    title:
      "a file changed on both sides, the service's newer (row 42): the folder's is renamed to its conflict copy and the flush after the rename fails; the next sync uploads the copy as a new file and the conflict is never recorded",
    plan: SMALL,
    play: async (run) => {
      const { doc } = await synced(run);
      const service = await serviceDoc(run, doc.id);
      const old = service.attachments.find((a) => doc.files.get(a.name) === a.sha256);
      if (!old) throw new Error('the scenario needs a file agreed on both sides');
      // The person replaces the file, then a service user replaces the attachment: theirs is
      // newer, and the folder's goes to its conflict copy.
      const file = `${doc.folder}/${old.name}`;
      const ours = content(run.chaos, 'local both');
      run.view.write(file, ours);
      run.ledger.wrote(sha256(ours), `local ${file}`);
      run.clock.pass(60_000);
      run.ledger.deleted(old.sha256);
      run.view.sim.admin.deleteAttachment(doc.id, old.id);
      serviceAdds(run, doc.id, old.name);
      // The rename to the copy is made, and the flush of the folder after it fails.
      run.disk.set({ code: 'EIO', areas: new Set(['rename']), share: 1, after: 1, locked: file });
      run.note(`disk: EIO after every rename of ${file}`);
      await deliverAll(run);
      run.disk.set(null);
      run.note('disk: healed');
      await run.advance(65_000);
      run.requestRound(true);
      await run.drain();
      if (!run.world.life.state.conflicts.list(10).some((c) => c.documentId === doc.id))
        run.ledger.found(
          'every conflict is recorded',
          `the conflict over ${old.name} is not recorded, though its copy is in the folder`,
        );
    },
    expectInTrace: ['(after the change)'],
  },
  {
    name: 'seed 1',
    title:
      'a new document pulled just before a crash (its folder made, its commit not), which a service user then deletes, its webhook never sent: the folder names a document nobody knows, left unsynced for ever',
    plan: SMALL,
    play: async (run) => {
      const { doc } = await synced(run);
      const owner = run.view.meta(doc.folder).owner;
      const made = run.view.sim.admin.createDocument({ owner, name: 'Pulled before a crash' });
      const id = String(made.id);
      serviceAdds(run, id, 'remote 1.pdf');
      // The webhook's sync builds the new folder whole and stops before its commit; the daemon
      // dies there.
      run.parkAt = (step, site) => step === 'before-commit' && site.what === 'pull-new-document';
      for (const hook of [...run.webhooks.waiting]) await run.deliver(hook, 'at once');
      await releaseUntil(run, at('before-commit'), 'the pull placed, its commit not made');
      run.parkAt = () => false;
      if (!localDocs(run.view).some((d) => d.id === id))
        throw new Error('the scenario expected the pulled folder in place');
      await run.crash();
      // Before the restart, a service user deletes the new document; the service never sends
      // its webhook: only a full listing tells.
      await deleteInService(run, id);
      run.webhooks.waiting.length = 0;
      run.note(`webhook never sent: deleteDocument ${id}`);
      await run.drain();
      // A full round's listing shows the document gone: its folder goes to the trash (row 11),
      // as it would have had the pull been committed.
      run.requestRound(true);
      await run.drain();
      const left = localDocs(run.view).find((d) => d.id === id);
      if (left)
        run.ledger.found(
          'a document a service user deleted leaves the folder',
          `${left.folder} still names ${id} after a full round`,
        );
    },
    expectInTrace: ['parked: before-commit', 'crash'],
  },
  {
    name: 'seed 68',
    title:
      'an entity folder renamed outside Companies/ while a sync pulls a new document into it: the pull makes the entity folder again, without its `.entity.json`, and the person cannot put theirs back',
    plan: SMALL,
    play: async (run) => {
      const { doc } = await synced(run);
      const owner = run.view.meta(doc.folder).owner;
      const made = run.view.sim.admin.createDocument({ owner, name: 'Pulled while away' });
      serviceAdds(run, String(made.id), 'remote 1.pdf');
      // The webhook's sync plans the pull and stops before it places the folder; meanwhile the
      // person renames the entity folder.
      run.parkAt = (step, site) =>
        step === 'before-local-write' && site.what === 'new document folder';
      for (const hook of [...run.webhooks.waiting]) await run.deliver(hook, 'at once');
      await releaseUntil(run, at('before-local-write'), 'the pull planned, its folder not placed');
      run.parkAt = () => false;
      moveEntity(run, doc.folder.slice(0, doc.folder.lastIndexOf('/')), 'renamed');
      await run.drain();
      // The person puts the folder back: the sync goes on (row 50), the new document with it.
      await undo(run, true);
    },
    expectInTrace: ['parked: before-local-write', 'moved to', 'person: put back'],
  },
  {
    name: 'seed 286',
    title:
      'in the first sync, an entity folder renamed outside Companies/ once its first document is placed and before its commit, and a catalogue refresh (here, a restart after a crash): no folder and no agreed document, so it makes the entity folder again',
    plan: SMALL,
    play: async (run) => {
      const doc = await firstPullPlaced(run);
      moveEntity(run, doc.folder.slice(0, doc.folder.lastIndexOf('/')), 'renamed');
      // The restart's first sync reads the catalogue again, the pull still in doubt.
      await run.crash();
      await run.drain();
      await undo(run, true);
    },
    expectInTrace: ['parked: before-commit', 'moved to', 'crash', 'person: put back'],
  },
  {
    name: 'seed 15630',
    title:
      "in the first sync, a new document's pull placed and a crash before its commit; a person types a status there and moves the entity folder out, a link left in its place: with no agreed document the restart's sync pulled the document again through the link, beside the first folder, which the person then put back as a second folder of it, their status never pushed",
    plan: SMALL,
    play: async (run) => {
      const doc = await firstPullPlaced(run);
      await run.crash();
      const current = (run.view.meta(doc.folder).status ?? '').toUpperCase();
      const typed = run.chaos.statusNames.find((name) => name.toUpperCase() !== current);
      if (!typed) throw new Error('the scenario needs a second status type');
      run.view.editMeta(doc.folder, (meta) => ({ ...meta, status: typed }));
      run.note(`local edit: status typed ${doc.folder}`);
      const entity = doc.folder.slice(0, doc.folder.lastIndexOf('/'));
      linkedAway(run, entity);
      await run.drain();
      await undo(run, true);
    },
    expectInTrace: ['parked: before-commit', 'crash', 'a link left', 'person: put back'],
  },
  {
    name: 'seed 45',
    title:
      "a folder made while the service's status types cannot be read: the document docsync makes for it gets the service's default status, its `.document.json` shows none, and every later sync reads that blank as a status the person typed, never shown and never pushed",
    plan: SMALL,
    play: newFolderWhileTypesUnread,
    expectInTrace: ['the status types answer 503', 'the status types answer again'],
  },
  {
    name: 'seed 28',
    title:
      "a person replaces a file while a service user removes its attachment (row 33: modify beats delete, the new content goes up as a new attachment), and the upload's answer is lost: settled as carried out, the upload recorded no conflict, so the service user's removal was undone with nothing to say why",
    plan: SMALL,
    play: replacedOverARemoval,
    expectInTrace: ['the service carried out upload-attachment and lost its answer'],
  },
  {
    name: 'seed 1698',
    title:
      "a false alarm of the book: a file a person added, uploaded with the service's answer lost, then deleted by a service user, looked lost once docsync moved it to the trash (row 30)",
    plan: SMALL,
    play: uploadUnansweredThenDeleted,
    expectInTrace: ['the service carried out upload-attachment and lost its answer'],
  },
  {
    name: 'seed 826',
    title:
      "a new document pulled, and the flush after its folder's rename fails (EIO), so the pull is not committed; a person deletes one of its files and replaces the other before the next sync: the delete is never sent, and the replaced file goes up beside the attachment it replaced",
    plan: SMALL,
    play: pulledThenEdited,
    expectInTrace: ['(after the change)'],
  },
  {
    name: 'seed 3350',
    title:
      "a false alarm of the book: a service user deletes a document a person changed, docsync makes it again from the folder (row 12), and the person keeps the service's side of the conflict: the folder goes to the trash and docsync deletes the document it made, which read as gone with nobody deleting it",
    plan: SMALL,
    play: restoredThenLetGo,
    expectInTrace: ['operator: page resolves conflict', 'page: done'],
  },
  {
    name: 'seed 4199',
    title:
      "a false alarm of the ledger: a person types a status the service does not know, then types back the agreed one (in lower case) after a service user set another; the service's status wins, with nothing to record",
    plan: SMALL,
    play: async (run) => {
      const { doc, types } = await synced(run);
      const agreed = run.view.meta(doc.folder).status;
      // Before docsync hears of anything, the person's own edit is taken back by hand.
      run.view.editMeta(doc.folder, (meta) => ({ ...meta, status: 'Awaiting Partner 1' }));
      run.view.sim.admin.assignStatus(doc.id, { typeId: types[0]!.id });
      run.view.editMeta(doc.folder, (meta) => ({ ...meta, status: agreed?.toLowerCase() ?? null }));
      await settleWatcher(run);
      await deliverAll(run);
      const pushed = run.ledger.serviceWrites.some((w) => w.write.kind === 'assign-status');
      const shown = run.view.meta(doc.folder).status;
      if (pushed || shown !== types[0]!.name)
        throw new Error(
          `the scenario expected the service's status pulled and nothing pushed; the folder shows ${shown}`,
        );
    },
  },
  {
    name: 'seed 4211',
    title:
      "a person types a status the service does not know and copies the document's folder beside it; a service user adds a file: the pull's rewrite of `.document.json` looked for the typed status in the copy (it names the same document), found none to keep in the folder itself, and put the agreed status back over the person's, with no trace",
    plan: SMALL,
    play: async (run) => {
      const { doc } = await synced(run);
      run.view.editMeta(doc.folder, (meta) => ({ ...meta, status: 'Awaiting Partner 1' }));
      run.note(`local edit: unknown status typed ${doc.folder}`);
      await settleWatcher(run);
      // The copy's name sorts after the folder's: a scan meets it second.
      awayEdit(run, 'folder copied', doc);
      serviceAdds(run, doc.id, 'remote 5.pdf');
      await deliverAll(run);
      // The person removes the copy; the end judges the folder's status.
      await undo(run, true);
    },
    expectInTrace: ['copied to', 'webhook at once: newAttachment', 'person: removed the copy'],
  },
  {
    name: 'seed 4655',
    title:
      "a person types a status the service took out of its catalogue since docsync read it, and replaces a file of the same document: the status push is refused (422) and, unlike a refused file, stopped the document's other changes, so the replaced file went up only when the daily full round read the status types again",
    plan: SMALL,
    play: statusRefusedBeforeAFile,
    expectInTrace: ['service: status type removed', 'local edit: replaced file'],
  },
  {
    name: 'seed 867',
    title:
      "a false alarm of the book: a person adds a file and moves the entity folder away before docsync hears of it; the service enters the entity again under a new id, and the person puts the folder back: it is kept, unsynced, with the file, which read as missing from the service because the book looked for the entity's folder only in Companies/",
    plan: SMALL,
    play: async (run) => {
      const { doc } = await synced(run);
      const text = content(run.chaos, 'new local');
      run.view.write(`${doc.folder}/new.txt`, text);
      run.ledger.wrote(sha256(text), `local ${doc.folder}/new.txt`);
      moveEntity(run, doc.folder.slice(0, doc.folder.lastIndexOf('/')), 'renamed');
      await renumberEntityOf(run, doc.id);
      await settleWatcher(run);
      await undo(run, true);
      await deliverAll(run);
    },
    expectInTrace: ['moved to', 'service: entity renumbered', 'person: put back'],
  },
  {
    name: 'seed 1825',
    title:
      "a person moves a company's folder away; the service enters the company again under a new id, by the same name, and its new documents' webhooks come before the folder is back: docsync made the new company's folder at the path of the folder away, which then could not come back, and the new record clashed with the old one's folder, so every read of the catalogue failed (seeds 3972, 7294 too)",
    plan: SMALL,
    play: async (run) => {
      const { doc } = await synced(run);
      const folder = doc.folder.slice(0, doc.folder.lastIndexOf('/'));
      moveEntity(run, folder, 'renamed');
      await settleWatcher(run);
      await renumberEntityOf(run, doc.id);
      await deliverAll(run);
      await undo(run, true);
      await deliverAll(run);
    },
    expectInTrace: ['moved to', 'service: entity renumbered', 'person: put back'],
  },
  {
    name: 'seed 3575',
    title:
      "a new folder's create is carried out and its answer lost; the next sync cannot read the document it would find by name, yet its plan can, and pulls that document as new: once agreed, the create is closed as never sent, and the folder makes a second document",
    plan: SMALL,
    play: createCheckFailsThenPulled,
    expectInTrace: [
      'the service carried out create-document and lost its answer',
      "the document's details answer 503",
    ],
  },
  {
    name: 'seed 1955',
    title:
      "a service user sets a status, and a second later a person types another, which the firm has taken out of its catalogue since docsync read it: the push over the service's status (row 23) is refused, yet the document's change time was agreed with the status the push was to replace, so no later sync saw the service's",
    plan: SMALL,
    play: statusRefusedOverTheService,
    expectInTrace: ['service: status type removed', 'status typed a second after'],
  },
  {
    name: 'seed 6822',
    title:
      "a person types a status the service does not know and copies the document folder beside it (row 17); a service user adds a file: the copy, scanned after its original, was taken for the folder holding the typed status, and the original's `.document.json`, rewritten after the pull, lost it",
    plan: SMALL,
    play: async (run) => {
      const { doc } = await synced(run);
      run.view.editMeta(doc.folder, (meta) => ({ ...meta, status: 'Awaiting Partner 1' }));
      await settleWatcher(run);
      if (!awayEdit(run, 'folder copied', doc)) throw new Error('the scenario needs a copy');
      serviceAdds(run, doc.id, 'added.pdf');
      await settleWatcher(run);
      await deliverAll(run);
      await undo(run, true);
    },
    expectInTrace: ['copied to', 'person: removed the copy'],
  },
  {
    name: 'seed 7037',
    title:
      "a person types a status; a service user deletes the entity's other document, and the service's next listing of the entity leaves the first out: the full listing comes back empty, and the first document, taken for deleted while changed here (row 12), was made again under a new id while the service still had it, the person's status on the copy",
    plan: SMALL,
    play: async (run) => {
      const { doc, types } = await synced(run);
      const other = localDocs(run.view).find((d) => d.id !== doc.id);
      if (!other) throw new Error('the scenario needs a second document');
      await deleteInService(run, other.id);
      run.view.sim.admin.skipInNextListing(doc.id);
      run.note(`service: document missing from a listing ${doc.id}`);
      run.view.editMeta(doc.folder, (meta) => ({ ...meta, status: types[0]!.name }));
      // The round before the watcher's sync: the edit is still the folder's alone.
      run.requestRound(true);
      await run.drain(0);
      await settleWatcher(run);
      await deliverAll(run);
    },
    expectInTrace: ['service: document missing from a listing', 'full round'],
  },
  {
    name: 'seed 10302',
    title:
      "a service user deletes a document, and a person renames its folder after docsync planned to move it to the trash (row 11): the trash found nothing at the old name and dropped the document's row, so the renamed folder was left for ever naming a document nobody knows (seed 9257 too, its entity folder moved away and put back)",
    plan: SMALL,
    play: async (run) => {
      const { doc } = await synced(run);
      await deleteInService(run, doc.id);
      await renamedUnderTrash(run, doc, 'trash the folder');
    },
    expectInTrace: ['parked: before-local-write', 'local edit: renamed folder'],
  },
  {
    name: 'seed 439',
    title:
      "a service user removes an attachment, and a person renames the document's folder after docsync planned to move the file to the trash (row 30): the trash found nothing at the old name and dropped the attachment from the agreed state, so the file, still in the renamed folder, went up again as new, the removal undone",
    plan: SMALL,
    play: async (run) => {
      const { doc } = await synced(run);
      const removed = await agreedFileRemoved(run, doc);
      await renamedUnderTrash(run, doc, `trash ${removed}`);
    },
    expectInTrace: ['parked: before-local-write', 'local edit: renamed folder'],
  },
  {
    name: 'seed 115',
    title:
      "a service user sets a status; before docsync hears of it a person deletes the document's folder, and the sync downloads it again (row 9, modify beats delete); before the new folder is placed the person puts theirs back from the bin: docsync placed its download beside it as `… (2)`, two folders of one document, the second ignored for ever",
    plan: SMALL,
    play: async (run) => {
      // The second document: the first of each entity is never deleted (seed-run.ts).
      const { doc, types } = await synced(run, 1);
      run.view.sim.admin.assignStatus(doc.id, { typeId: types[0]!.id });
      run.note(`remote edit: ${doc.id} status ${types[0]!.name}`);
      if (!(await deleteFolderKept(run, doc))) throw new Error('the scenario needs the delete');
      run.note(`local edit: folder deleted ${doc.folder}, kept in the bin`);
      run.parkAt = (step, site) =>
        step === 'before-local-write' && site.what === 'new document folder';
      await run.advance(5_000);
      await releaseUntil(run, at('before-local-write'), 'the download again planned, not placed');
      run.parkAt = () => false;
      if (!(await putBackFromBin(run))) throw new Error('the scenario needs the put-back');
      await run.drain();
      await settleWatcher(run);
      await deliverAll(run);
    },
    expectInTrace: ['parked: before-local-write', 'from the bin'],
  },
  {
    name: 'seed 196',
    title:
      "a person deletes a document's folder and a service user re-dates the document; the sync downloads it again (row 9, modify beats delete) and the daemon dies after the folder is placed, before the commit: the restart took the folder as the person's, and the conflict that says why their deleted folder is back was never recorded",
    plan: SMALL,
    play: async (run) => {
      // The second document: the first of each entity is never deleted (seed-run.ts).
      const { doc } = await synced(run, 1);
      if (!localEdits.deleteFolder(run.chaos, doc))
        throw new Error('the scenario needs the delete');
      run.note(`local edit: folder deleted ${doc.folder}`);
      const { owner, documentDate } = await serviceDoc(run, doc.id);
      const date = documentDate === '2023-04-12' ? '2023-04-13' : '2023-04-12';
      run.view.sim.admin.editDocument(doc.id, { documentDate: date });
      run.ledger.book.detailsChanged(doc.id, { documentDate: date });
      run.webhooks.queue(owner, doc.id, 'statusChange');
      run.note(`service: document re-dated ${doc.id} to ${date}`);
      run.parkAt = (step, site) => step === 'before-commit' && site.what === 'restore-document';
      await run.advance(5_000);
      await releaseUntil(
        run,
        at('before-commit'),
        'the download again placed, its commit not made',
      );
      run.parkAt = () => false;
      if (!localDocs(run.view).some((d) => d.id === doc.id))
        throw new Error('the scenario expected the folder placed again');
      await run.crash();
      await run.drain();
      await deliverAll(run);
    },
    expectInTrace: ['parked: before-commit', 'crash'],
  },
  {
    name: 'seed 54',
    title:
      "a new folder's document is made and its `.document.json` written, and the daemon dies before the commit; a person types a status the service does not know there: the restart's settling of the create rewrote the file with the service's status over the person's, with no trace (and a status a service user sets there meanwhile must stay the service's)",
    plan: SMALL,
    play: createdThenTyped,
    expectInTrace: ['parked: before-commit', 'crash', 'unknown status typed', 'service: status'],
  },
  {
    name: 'seed 7577',
    title:
      "a person makes a folder; its create is carried out and `.document.json` written, and the server goes down before the commit; after the restart, before the create is settled, the person types a status there and a service user sets another: the settle rewrote `.document.json` with the service's status, the person's lost with no conflict recorded",
    plan: SMALL,
    play: createdThenBothStatuses,
    expectInTrace: ['crash, and a restart', 'both sides after the restart'],
  },
  {
    name: 'seed 190',
    title:
      "a full round's read of the companies is under way (it has read the list and makes their folders) when the service enters a company again under a new id and sends a webhook naming it: the webhook's look at the list joined the read under way, which began before the company was made, so the event was done as one naming a company the service does not list, and the company's documents waited for the nightly full round",
    plan: SMALL,
    play: async (run) => {
      const { doc } = await synced(run);
      const { owner } = await serviceDoc(run, doc.id);
      run.parkAt = (step) => step === 'before-local-write';
      run.requestRound(true);
      await releaseUntil(
        run,
        at('before-local-write'),
        "the round's read of the companies under way",
      );
      run.parkAt = () => false;
      const entered = await renumberEntityOf(run, doc.id, owner);
      // One webhook: a second one's look at the list, after the read, would find the company.
      const [first, ...rest] = entered.hooks;
      for (const hook of rest) run.webhooks.waiting.splice(run.webhooks.waiting.indexOf(hook), 1);
      await run.deliver(first!, 'at once');
      // The webhook's look at the list goes first, while the round's read is still parked.
      const look = run.parked.find(at('catalogue-refresh'));
      if (!look) throw new Error("the scenario expected the webhook's look at the list parked");
      await run.release(look);
      await deliverAll(run);
    },
    expectInTrace: ['service: entity renumbered', 'webhook at once: newDocument'],
  },
  {
    name: 'seed 7',
    title:
      'the service stores upload names cleaned (spaces as `_`); a person adds a file, its upload is carried out and the answer lost: the settlement looked for the upload under the name sent, took it for never sent, and uploaded it again, two attachments of the same bytes',
    plan: SMALL,
    play: async (run) => {
      run.uploadNaming({ cleanedUploadNames: true }, 'stores upload names cleaned (spaces as _)');
      await newFileUploadUnanswered(run, 'added by hand.txt');
    },
    expectInTrace: ['the service carried out upload-attachment and lost its answer'],
  },
  {
    name: 'seed 725',
    title:
      "a document carries a status whose type the service then takes out of its catalogue; a full round reads the list again and a person removes the folder's `.document.json`: docsync wrote it again (row 14) with a blank status, as the list read named the type no more, while the service still shows it",
    plan: SMALL,
    play: statusOfARemovedType,
    expectInTrace: ['service: status type removed', 'local edit: .document.json removed'],
  },
];

/** The first sync parked once its first document's pull is placed, before its commit: that document. */
async function firstPullPlaced(run: SeedRun): Promise<LocalDoc> {
  run.parkAt = (step, site) => step === 'before-commit' && site.what === 'pull-new-document';
  await releaseUntil(run, at('before-commit'), "the first document's pull placed, not committed");
  run.parkAt = () => false;
  const [doc] = localDocs(run.view);
  if (!doc) throw new Error('the scenario expected the first document placed');
  return doc;
}

/**
 * Seed 3575: a person makes a folder; its create is carried out and the answer lost. The next
 * sync settles the create first: it lists the owner's documents and reads the details of the one
 * of the create's name, which fail (a connection reset in the seed, a 503 here). The plan that
 * follows lists the same document and reads its details, which answer now.
 */
async function createCheckFailsThenPulled(run: SeedRun): Promise<void> {
  const { doc } = await synced(run);
  const owner = run.view.meta(doc.folder).owner;
  const of = `${owner.kind}:${owner.id}`;
  run.view.sim.admin.loseNextAnswer('POST', '/documents');
  localEdits.newFolder(run.chaos);
  run.note('local edit: new folder');
  await run.advance(5_000);
  const lost = () => run.trace.some((l) => l.includes('lost its answer'));
  for (let i = 0; i < 10 && !lost(); i++) await run.release(run.parked[0]!);
  if (!lost()) throw new Error('the scenario expected the create carried out and its answer lost');
  // The next sync settles the create, then plans: the details fail between the two listings.
  run.holdAt = (label) => label === `documents of ${of}` || label.startsWith(`versions of ${of}`);
  await releaseUntil(run, (p) => p.label === `documents of ${of}`, "the settle's listing");
  detailsFail(run, false);
  await run.releaseWhere((p) => p.label === `documents of ${of}`, "the settle's listing");
  await releaseUntil(run, (p) => p.label.startsWith(`versions of ${of}`), "the plan's listing");
  run.faults({}, 'healed');
  run.holdAt = () => false;
  await run.drain();
  await run.advance(300_000);
  run.requestRound(true);
  await run.drain();
}

/**
 * Seed 1955: the person's status is the newer (row 23), and its type left the service's
 * catalogue after docsync read it, so its push is refused. The service's status stays; the
 * agreed state must show it, as the folder keeps the person's (row 29), in error.
 */
async function statusRefusedOverTheService(run: SeedRun): Promise<void> {
  const { doc, types } = await synced(run);
  const [ours, theirs] = types.filter((t) => t.name !== DEFAULT_STATUS_NAME);
  if (!ours || !theirs) throw new Error('the scenario needs two status types besides the default');
  run.view.sim.admin.assignStatus(doc.id, { typeId: theirs.id });
  run.clock.pass(1000);
  run.view.editMeta(doc.folder, (meta) => ({ ...meta, status: ours.name }));
  run.note(
    `both sides: ${theirs.name} set in the service, ${ours.name} status typed a second after`,
  );
  run.view.sim.admin.removeStatusType(ours.id);
  run.note(`service: status type removed ${ours.id} (${ours.name})`);
  await settleWatcher(run);
  await deliverAll(run);
}

/**
 * A service user deletes a document while a person adds a file to its folder: modify beats
 * delete (row 12), the document is made again under a new id and a conflict recorded. The person
 * keeps the service's side: the folder goes to the trash, and, its hold time past, the document
 * docsync made is deleted in the service, by the person's decision.
 */
async function restoredThenLetGo(run: SeedRun): Promise<void> {
  const { doc } = await synced(run);
  await deleteInService(run, doc.id);
  const text = content(run.chaos, 'new local');
  run.view.write(`${doc.folder}/new.txt`, text);
  run.ledger.wrote(sha256(text), `local ${doc.folder}/new.txt`);
  await deliverAll(run);
  await settleWatcher(run);
  const made = run.view.meta(doc.folder).id;
  if (made === doc.id) throw new Error('the scenario expected the document made again');
  const conflict = run.world.life.state.conflicts
    .list(10, { open: true })
    .find((c) => c.subject?.kind === 'document');
  if (!conflict) throw new Error('the scenario expected the restore recorded as a conflict');
  await pageResolve(run, conflict.id, 'keep-theirs');
  await run.drain();
  await run.advance(DELETE_DUE_MS);
  run.requestRound(true);
  await run.drain();
  if ((await run.view.remote()).documents.some((d) => d.id === made))
    throw new Error('the scenario expected the document made again deleted in the service');
}

/**
 * A person adds a file; its upload is carried out and its answer lost (docsync settles it by
 * reading the service); then a service user deletes the attachment. The folder's copy goes to
 * the trash, as a service user's delete should: the book must know the attachment was docsync's
 * upload of that file, though no answer named its id.
 */
async function uploadUnansweredThenDeleted(run: SeedRun): Promise<void> {
  const name = 'added by hand.txt';
  const doc = await newFileUploadUnanswered(run, name);
  const uploaded = (await serviceDoc(run, doc.id)).attachments.find((a) => a.name === name);
  if (!uploaded) throw new Error('the scenario expected the upload carried out');
  run.ledger.deleted(uploaded.sha256);
  run.view.sim.admin.deleteAttachment(doc.id, uploaded.id);
  run.note(`remote edit: ${doc.id}/${name} deleted`);
  await deliverAll(run);
  if (run.view.exists(`${doc.folder}/${name}`))
    throw new Error("the scenario expected the folder's copy moved to the trash");
}

/**
 * The service's change just made is heard at once; the sync's move of `what` to the trash is
 * planned and stops before it is carried out, and the person renames the document's folder.
 */
async function renamedUnderTrash(run: SeedRun, doc: LocalDoc, what: string): Promise<void> {
  run.parkAt = (step, site) => step === 'before-local-write' && site.what === what;
  for (const hook of [...run.webhooks.waiting]) await run.deliver(hook, 'at once');
  await releaseUntil(run, at('before-local-write'), 'the trash planned, not carried out');
  run.parkAt = () => false;
  if (!localEdits.renameFolder(run.chaos, doc)) throw new Error('the scenario needs a rename');
  run.note(`local edit: renamed folder ${doc.folder}`);
  await run.drain();
  await settleWatcher(run);
  await deliverAll(run);
}

/**
 * A person adds a file `name` to a synced document; its upload is carried out and the answer
 * lost; the next round settles it. Returns the document.
 */
async function newFileUploadUnanswered(run: SeedRun, name: string): Promise<LocalDoc> {
  const { doc } = await synced(run);
  run.view.sim.admin.loseNextAnswer('POST', '/documents/{documentId}/attachments');
  localEdits.newFile(run.chaos, doc, name);
  run.note(`local edit: new file ${doc.folder}/${name}`);
  await settleWatcher(run);
  await run.advance(300_000);
  run.requestRound(true);
  await run.drain();
  return doc;
}

/** A service user removes the attachment of a file agreed on both sides; returns its name. */
async function agreedFileRemoved(run: SeedRun, doc: LocalDoc): Promise<string> {
  const agreed = (await serviceDoc(run, doc.id)).attachments.find(
    (a) => a.kind === 'user' && doc.files.get(a.name) === a.sha256,
  );
  if (!agreed) throw new Error('the scenario needs a file agreed on both sides');
  run.ledger.deleted(agreed.sha256);
  run.view.sim.admin.deleteAttachment(doc.id, agreed.id);
  run.note(`remote edit: ${doc.id}/${agreed.name} removed`);
  return agreed.name;
}

/**
 * A service user removes a synced file's attachment and, a second later, a person writes new
 * content into the file; the answer of the upload that follows (row 33) is lost.
 */
async function replacedOverARemoval(run: SeedRun): Promise<void> {
  const { doc } = await synced(run);
  const removed = await agreedFileRemoved(run, doc);
  run.clock.pass(1_000);
  const ours = content(run.chaos, 'local over a removal');
  run.view.write(`${doc.folder}/${removed}`, ours);
  run.ledger.wrote(sha256(ours), `local ${doc.folder}/${removed}`);
  run.view.sim.admin.loseNextAnswer('POST', '/documents/{documentId}/attachments');
  run.note('service: the answer of the next upload will be lost');
  await deliverAll(run);
}

/**
 * The status types answer 503 from the start, and no document of the firm carries the status a
 * new document gets (so no sync learns its name from them); once the first sync is done, a
 * person makes a folder; then the list is read again.
 */
async function newFolderWhileTypesUnread(run: SeedRun): Promise<void> {
  run.faults(
    { routes: { '/documents/statusTypes': 503 } },
    'the status types answer 503, from the start',
  );
  const start = await run.view.remote();
  const other = start.statusTypes.find((t) => t.name !== DEFAULT_STATUS_NAME);
  if (!other) throw new Error('the scenario needs a status type besides the default');
  for (const d of start.documents)
    if (d.status?.type === DEFAULT_STATUS_NAME)
      run.view.sim.admin.assignStatus(d.id, { typeId: other.id });
  await synced(run);
  localEdits.newFolder(run.chaos);
  run.note('local edit: new folder');
  await settleWatcher(run);
  const made = run.ledger.serviceWrites.some((w) => w.ok && w.write.kind === 'create-document');
  if (!made) throw new Error('the scenario expected the new folder made a document');
  // The list is read again: the folder must show the default status, not a blank in error.
  run.faults({}, 'healed: the status types answer again');
  await run.advance(300_000);
  run.requestRound(true);
  await run.drain();
}

/**
 * Seed 4655: a status type leaves the service's catalogue after docsync read it; a person types
 * it into a synced folder and replaces one of its files. The status push is refused; the
 * replaced file must still go up in the next sync, not wait for a full round.
 */
async function statusRefusedBeforeAFile(run: SeedRun): Promise<void> {
  const { doc, types } = await synced(run);
  const type = types.find((t) => t.name !== DEFAULT_STATUS_NAME);
  if (!type) throw new Error('the scenario needs a status type besides the default');
  run.view.sim.admin.removeStatusType(type.id);
  run.note(`service: status type removed ${type.id} (${type.name})`);
  run.view.editMeta(doc.folder, (meta) => ({ ...meta, status: type.name }));
  const name = [...doc.files.keys()].find((n) => !doc.system.has(n));
  if (!name) throw new Error('the scenario needs a user file to replace');
  const ours = content(run.chaos, 'local replaced');
  run.ledger.deleted(doc.files.get(name)!);
  run.view.write(`${doc.folder}/${name}`, ours);
  run.ledger.wrote(sha256(ours), `local ${doc.folder}/${name}`);
  run.note(`local edit: replaced file ${name}, and status typed, in ${doc.folder}`);
  await settleWatcher(run);
}

/**
 * Seed 725: a service user's status stays on the document after its type left the catalogue;
 * the agreed state names it by the type's id, and the list read since lacks that id. Each
 * rewrite of `.document.json` must still show the status by its name.
 */
async function statusOfARemovedType(run: SeedRun): Promise<void> {
  const { doc, types } = await synced(run);
  const type = types.find((t) => t.name !== DEFAULT_STATUS_NAME);
  if (!type) throw new Error('the scenario needs a status type besides the default');
  run.view.sim.admin.assignStatus(doc.id, { typeId: type.id });
  run.note(`remote edit: ${doc.id} status ${type.name}`);
  await deliverAll(run);
  if (run.view.meta(doc.folder).status !== type.name)
    throw new Error("the scenario expected the service's status in the folder");
  run.view.sim.admin.removeStatusType(type.id);
  run.note(`service: status type removed ${type.id} (${type.name})`);
  await run.advance(300_000);
  run.requestRound(true);
  await run.drain();
  run.view.remove(`${doc.folder}/.document.json`);
  run.note(`local edit: .document.json removed ${doc.folder}`);
  await settleWatcher(run);
}

/** The folder read-only: every change refused with EACCES (disk-faults.ts). */
/**
 * Seed 826: a pull of a new document places its folder whole and fails after the rename (the
 * flush), so its base is not committed and the pull stays in doubt; before the next sync a
 * person deletes one of its files and replaces the other. That sync reads the pull's base back
 * from the folder: the person's edits must be judged against what the pull placed (row 32, a
 * delete; row 31, a replace), as they would had the commit been made.
 */
async function pulledThenEdited(run: SeedRun): Promise<void> {
  const { doc } = await synced(run);
  const owner = run.view.meta(doc.folder).owner;
  const id = String(
    run.view.sim.admin.createDocument({ owner, name: 'Pulled on a failing disk' }).id,
  );
  const deleted = serviceAdds(run, id, 'remote 1.pdf');
  const replaced = serviceAdds(run, id, 'remote 2.pdf');
  run.disk.set({ code: 'EIO', areas: new Set(['folder made']), share: 1, after: 1 });
  run.note('disk: EIO after every folder made');
  await deliverAll(run);
  run.disk.set(null);
  run.note('disk: healed');
  const pulled = localDocs(run.view).find((d) => d.id === id);
  if (!pulled) throw new Error('the scenario expected the pulled folder in place');
  if (run.world.life.state.base.get(id)) throw new Error('the scenario expected no commit');
  run.ledger.deleted(deleted);
  run.view.remove(`${pulled.folder}/remote 1.pdf`);
  const ours = content(run.chaos, 'local replaced');
  run.ledger.deleted(replaced);
  run.view.write(`${pulled.folder}/remote 2.pdf`, ours);
  run.ledger.wrote(sha256(ours), `local ${pulled.folder}/remote 2.pdf`);
  run.note(`local edit: remote 1.pdf deleted, remote 2.pdf replaced in ${pulled.folder}`);
  await settleWatcher(run);
  run.requestRound(true);
  await run.drain();
  const left = (await serviceDoc(run, id)).attachments.map((a) => `${a.name} ${a.sha256}`);
  if (left.join() !== `remote 2.pdf ${sha256(ours)}`)
    run.ledger.found(
      "a person's edits of a pulled folder reach the service",
      `the service holds ${left.join(', ')}; the folder holds remote 2.pdf as the person replaced it, and no remote 1.pdf`,
    );
}

const READ_ONLY = DISK_FAULTS.find(([label]) => label.startsWith('the folder read-only'))![1];

/**
 * Seed 7577: the create's answer came and its folder was named; the commit did not. Before the
 * restart's sync settles it, both sides set the new document's status: the settle must agree
 * the document as it was made, so the next plan sees both changes (rows 23, 24), not write the
 * service's status over the person's.
 */
async function createdThenBothStatuses(run: SeedRun): Promise<void> {
  const { types } = await synced(run);
  const [ours, theirs] = types.filter((t) => t.name !== DEFAULT_STATUS_NAME);
  if (!ours || !theirs) throw new Error('the scenario needs two status types besides the default');
  const made = await createdBeforeACrash(run);
  run.view.sim.admin.assignStatus(made.id, { typeId: theirs.id });
  run.clock.pass(1000);
  run.view.editMeta(made.folder, (meta) => ({ ...meta, status: ours.name }));
  run.note(`both sides after the restart: ${theirs.name} there, ${ours.name} typed here`);
  await settleWatcher(run);
  await deliverAll(run);
}

/**
 * Seed 54: a person's new folder is made a document, its `.document.json` written, and the
 * daemon dies before the create is committed; before the restart's sync settles the create, the
 * person types a status the service does not know into that file. It must stay there (row 29).
 * Then the other way round: a service user sets a status instead, and that one is the service's
 * change, not a person's edit to push back over it.
 */
async function createdThenTyped(run: SeedRun): Promise<void> {
  await synced(run);
  const typed = await createdBeforeACrash(run);
  run.view.editMeta(typed.folder, (meta) => ({ ...meta, status: 'Awaiting Partner 1' }));
  run.note(`local edit: unknown status typed ${typed.folder}`);
  await settleWatcher(run);
  await deliverAll(run);

  const set = await createdBeforeACrash(run);
  const type = (await run.view.remote()).statusTypes.find((t) => t.name !== DEFAULT_STATUS_NAME);
  if (!type) throw new Error('the scenario needs a status type besides the default');
  run.view.sim.admin.assignStatus(set.id, { typeId: type.id });
  run.note(`service: status ${type.name} set on ${set.id}`);
  await settleWatcher(run);
  await deliverAll(run);
  const now = (await serviceDoc(run, set.id)).status?.type;
  if (now !== type.name)
    run.ledger.found(
      "a service user's status stays",
      `${set.id} shows ${now} in the service, after a service user set ${type.name}`,
    );
}

/** A new folder's create, its `.document.json` written, and a crash before its commit. */
async function createdBeforeACrash(run: SeedRun): Promise<LocalDoc> {
  const known = new Set(localDocs(run.view).map((d) => d.id));
  localEdits.newFolder(run.chaos);
  run.note('local edit: new folder');
  run.parkAt = (step, site) => step === 'before-commit' && site.what === 'create-document';
  await run.advance(5_000);
  await releaseUntil(run, at('before-commit'), 'the create written, its commit not made');
  run.parkAt = () => false;
  const made = localDocs(run.view).find((d) => !known.has(d.id));
  if (!made) throw new Error("the scenario expected the new folder's `.document.json` written");
  await run.crash();
  return made;
}

/** The service enters the document's entity again under a new id (its documents made anew). */
async function renumberEntityOf(run: SeedRun, documentId: string, owner?: OwnerRef) {
  const of = owner ?? (await serviceDoc(run, documentId)).owner;
  const entered = await entityGone(run, await run.view.remote(), of, 'renumbered');
  run.note(`service: entity renumbered ${entered.what}`);
  return entered;
}
