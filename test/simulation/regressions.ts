/**
 * Issue 25's numbered cases as scripted scenarios of the simulation: the same world, steps and
 * invariants as a random seed, but each step chosen to make the case happen, and a check of the
 * case's own where the general invariants would not say it precisely. On the code before the
 * issue's fixes each of these fails (docs/simulation.md lists what each finds); they run in
 * `npm test` (regressions.test.ts) and with `npm run simulate -- --regressions`.
 */
import { content, localDocs, localEdits } from '../chaos/local-edits.js';
import { remoteEdits } from '../chaos/remote-edits.js';
import { sha256 } from '../helpers/sync-harness.js';
import { cliResolve } from './operator-steps.js';
import type { Parked } from './park-board.js';
import { FOUND_SCENARIOS } from './regressions-found.js';
import {
  at,
  DELETE_DUE_MS,
  deletedLocally,
  deleteInService,
  deliverAll,
  keptEditOfSystemForm,
  lateDetails,
  releaseUntil,
  type Scenario,
  SMALL,
  serviceDoc,
  settleWatcher,
  statusConflict,
  synced,
  TWO_COMPANIES,
} from './scenario-steps.js';
import { ownerKeyOf } from './sim-world.js';

export { runScenario, type Scenario } from './scenario-steps.js';

/** Issue 25's cases, and the bugs random seeds found after its fixes. */
const ISSUE_25: readonly Scenario[] = [
  {
    name: 'case 1a',
    title:
      "a person's status (`conflicts resolve keep-mine` from the CLI) is overwritten by a sync already under way",
    plan: SMALL,
    play: async (run) => {
      const { doc, types } = await synced(run);
      const conflict = await statusConflict(run, doc, types);
      await lateDetails(run, doc, types[2]!);
      await cliResolve(run, conflict, 'keep-mine');
      if (run.trace.some((l) => l.includes('cli: decision')))
        run.ledger.found(
          'a decision waits for the sync of its entity under way',
          'the decision was carried out while the sync that read the late details still ran',
        );
      await run.releaseWhere((p) => p.kind === 'answer', 'the late details');
      await run.drain();
    },
    expectInTrace: ['cli: decision 1 done'],
  },
  {
    name: 'case 1b',
    title:
      'a status written into .document.json by hand is overwritten by a sync already under way',
    plan: SMALL,
    play: async (run) => {
      const { doc, types } = await synced(run);
      await lateDetails(run, doc, types[1]!);
      run.view.editMeta(doc.folder, (meta) => ({ ...meta, status: types[0]!.name }));
      await run.releaseWhere((p) => p.kind === 'answer', 'the late details');
      await run.drain();
    },
  },
  {
    name: 'case 2',
    title: 'a typed status the service refused disappears when the service changes the document',
    plan: SMALL,
    play: async (run) => {
      const { doc } = await synced(run);
      run.view.editMeta(doc.folder, (meta) => ({ ...meta, status: 'Awaiting Partner Signoff' }));
      await settleWatcher(run);
      remoteEdits.addAttachment(run.chaos, await serviceDoc(run, doc.id), 'Added later.pdf');
      await deliverAll(run);
    },
  },
  {
    name: 'case 3',
    title: "a webhook's deletion is lost when its sync fails",
    plan: SMALL,
    play: async (run) => {
      const { doc } = await synced(run);
      run.faults(
        {
          routes: {
            '/companies/{ownerId}/documents': 503,
            '/companies/{ownerId}/documents/{documentId}': 503,
          },
        },
        "the company's document routes answer 503",
      );
      await deleteInService(run, doc.id);
      for (const hook of [...run.webhooks.waiting]) await run.deliver(hook, 'at once');
      // The outage outlasts the event's first tries, not all twenty (hours of doubling waits):
      // the service comes back while the event waits for its next try.
      await run.drain(5 * 60_000);
      run.faults({}, 'healed');
    },
  },
  {
    name: 'case 4',
    title: 'two catalogue refreshes at the first start make every entity folder twice',
    plan: TWO_COMPANIES,
    play: async (run) => {
      run.parkAt = (step, site) => step === 'before-local-write' && site.what === 'entity folder';
      let held = false;
      run.holdAt = (label) => {
        if (label !== 'companies' || held) return false;
        held = true;
        return true;
      };
      await run.releaseWhere(at('round-start'), "the first round's start");
      await run.releaseWhere(at('catalogue-refresh'), "the first round's catalogue refresh");
      // GET /companies is slow; a webhook names a company as soon as the receiver answers.
      const dump = await run.view.remote();
      const doc = dump.documents.find((d) => d.owner.kind === 'company')!;
      await run.deliver(run.webhooks.queue(doc.owner, doc.id, 'newAttachment'), 'at once');
      await run.releaseWhere(at('catalogue-refresh'), "the webhook's catalogue refresh");
      await run.releaseWhere((p) => p.kind === 'answer', 'the slow list of companies');
      await run.drain();
    },
  },
  {
    name: 'case 5',
    title: 'a mass delete trickles through: 18 of 24 document folders removed under the daemon',
    plan: {
      firm: { companies: 3, trusts: 0, documentsPerEntity: 8, attachmentsPerDocument: 1 },
      injections: 0,
      maxSteps: 0,
    },
    play: async (run) => {
      await synced(run);
      const before = new Set((await run.view.remote()).documents.map((d) => d.id));
      const byEntity = new Map<string, ReturnType<typeof localDocs>>();
      for (const doc of localDocs(run.view)) {
        const entity = doc.folder.slice(0, doc.folder.lastIndexOf('/'));
        byEntity.set(entity, [...(byEntity.get(entity) ?? []), doc]);
      }
      for (const docs of byEntity.values())
        for (const doc of docs.slice(2)) {
          for (const sha of doc.files.values()) run.ledger.deleted(sha);
          run.ledger.deletedNames.add(doc.name);
          run.view.remove(doc.folder);
        }
      // Time for the watcher's settle waits, and for deletions to fall due together.
      for (let i = 0; i < 15; i++) {
        await run.advance(10_000);
        await run.drain();
      }
      const after = new Set((await run.view.remote()).documents.map((d) => d.id));
      const deleted = [...before].filter((id) => !after.has(id)).length;
      const held = run.world.life.state.heldDeletes.list().length;
      if (held > 0 && deleted > 0)
        run.ledger.found(
          'a mass delete is seen whole',
          `${deleted} documents were deleted in the service while a rail held ${held} of the same burst`,
        );
    },
  },
  {
    name: 'case 6',
    title:
      'uploading x.pdf closes the refusal of "x.pdf: y.pdf", so the refused file is sent again',
    plan: SMALL,
    play: async (run) => {
      const { doc } = await synced(run);
      run.view.write(`${doc.folder}/x.pdf: y.pdf`, Buffer.alloc(51 * 1024 * 1024, 7));
      await settleWatcher(run);
      run.view.write(`${doc.folder}/x.pdf`, 'a small file');
      await settleWatcher(run);
      run.requestRound(false);
      await run.drain();
      const sent = run.ledger.serviceWrites.filter(
        (w) => w.write.kind === 'upload-attachment' && w.write.fileName === 'x.pdf: y.pdf',
      ).length;
      if (sent > 1)
        run.ledger.found(
          'a refused file is not sent again before its backoff ends',
          `"x.pdf: y.pdf" (51 MiB) was sent ${sent} times within a minute of its refusal`,
        );
    },
  },
  {
    name: 'case 7a',
    title: "one webhook for an entity in a long poll holds back every other entity's webhook",
    plan: TWO_COMPANIES,
    play: async (run) => {
      await synced(run);
      const dump = await run.view.remote();
      const [a, b] = [...new Set(dump.documents.map((d) => ownerKeyOf(d.owner)))];
      run.requestRound(false);
      await run.releaseWhere(at('round-start'), 'the poll round');
      // B's poll ends; A's is long (parked where it started).
      await run.releaseWhere(at('cycle-start', b), `the poll of ${b}`);
      const docA = dump.documents.find((d) => ownerKeyOf(d.owner) === a)!;
      const docB = dump.documents.find((d) => ownerKeyOf(d.owner) === b)!;
      await run.deliver(run.webhooks.queue(docA.owner, docA.id, 'newStatus'), 'at once');
      await run.deliver(run.webhooks.queue(docB.owner, docB.id, 'newStatus'), 'at once');
      if (!run.parked.some(at('cycle-start', b)))
        run.ledger.found(
          'webhooks of different entities are handled side by side',
          `the webhook for ${b} waits for ${a}'s poll, which has not ended`,
        );
      await run.drain();
    },
  },
  {
    name: 'case 7b',
    title:
      'on SIGTERM intake closes before the scheduler stops, so a queued sync starts after the signal',
    plan: SMALL,
    play: async (run) => {
      const { doc } = await synced(run);
      const dump = await run.view.remote();
      const owner = dump.documents.find((d) => d.id === doc.id)!.owner;
      await run.deliver(run.webhooks.queue(owner, doc.id, 'newStatus'), 'at once');
      // The watcher asks for the same entity: it waits behind the sync the webhook started.
      void run.world.life.daemon.request({ trigger: 'watcher', owner });
      await run.settle();
      const stopped = run.sigterm();
      await run.settle();
      await run.drain();
      await stopped;
      await run.restart();
    },
  },
  {
    name: 'case 7c',
    title:
      'a round over every entity at once (a root that lost its marker) runs beside entity syncs',
    plan: SMALL,
    play: async (run) => {
      const { doc } = await synced(run);
      const owner = (await serviceDoc(run, doc.id)).owner;
      // The marker is away when the round starts, so the round is one cycle over every entity;
      // the firm puts it back, and that cycle syncs while a webhook's sync starts beside it.
      const marker = run.view.read('.docsync-root');
      run.view.remove('.docsync-root');
      run.requestRound(false);
      await run.releaseWhere(at('round-start'), 'the poll round');
      run.view.write('.docsync-root', marker);
      run.parkAt = (step) => step === 'entity-planned';
      await run.releaseWhere(at('cycle-start'), 'the cycle over every entity');
      await run.deliver(run.webhooks.queue(owner, doc.id, 'newStatus'), 'at once');
      // The webhook's sync, if it started beside the cycle (it waits in the queue while the
      // cycle holds the entity's lock): let it run; the lock counts it.
      const beside = run.parked.find(at('cycle-start', ownerKeyOf(owner)));
      if (beside) await run.release(beside);
      run.parkAt = () => false;
      await run.drain();
    },
  },
  {
    name: 'seed 221',
    title:
      'a file a person replaced is trashed by a sync planned before the edit (the service had removed it)',
    plan: SMALL,
    play: async (run) => {
      const { doc } = await synced(run);
      const file = [...doc.files.keys()].find((f) => !doc.system.has(f));
      if (!file) throw new Error('the scenario needs a user attachment');
      const gone = (await serviceDoc(run, doc.id)).attachments.find((a) => a.kind === 'user')!;
      run.ledger.deleted(gone.sha256);
      run.view.sim.admin.deleteAttachment(doc.id, gone.id);
      // The sync the webhook starts plans "trash the attachment the service removed", and stops
      // just before it: the person replaces the file then.
      run.parkAt = (step, site) => step === 'before-local-write' && site.what === `trash ${file}`;
      const hooks = [...run.webhooks.waiting];
      for (const hook of hooks) await run.deliver(hook, 'at once');
      await run.releaseWhere(at('cycle-start'), "the webhook's sync");
      run.parkAt = () => false;
      const trash = run.parked.find(at('before-local-write'));
      if (!trash) throw new Error('the scenario expected the trash of the removed file planned');
      const text = content(run.chaos, 'replaced during the sync');
      run.view.write(`${doc.folder}/${file}`, text);
      run.ledger.wrote(sha256(text), `local ${doc.folder}/${file}`);
      await run.release(trash);
      await settleWatcher(run);
    },
  },
  {
    name: 'seed 4432',
    title:
      'a document the service changed after the plan to delete it (its folder deleted) is deleted anyway',
    plan: SMALL,
    play: async (run) => {
      const { doc } = await deletedLocally(run);
      // The deletion is due: the next sync plans the delete and stops there, and a service
      // user adds an attachment to that document before the delete is sent.
      run.parkAt = (step) => step === 'entity-planned';
      await run.advance(DELETE_DUE_MS);
      run.requestRound(false);
      await releaseUntil(run, at('entity-planned'), 'a sync parked after planning');
      run.parkAt = () => false;
      remoteEdits.addAttachment(run.chaos, await serviceDoc(run, doc.id), 'Added meanwhile.pdf');
      await run.releaseWhere(at('entity-planned'), 'the sync that planned the delete');
      await deliverAll(run);
      await run.drain();
    },
    expectInTrace: ['parked: entity-planned'],
  },
  {
    name: 'seed 3885',
    title:
      'a document deleted in the folder while its details answer is late and a service user adds an attachment: the trash copy is of the stale view, the attachment on no side',
    plan: SMALL,
    play: async (run) => {
      const { doc } = await deletedLocally(run);
      // The delete's own look at the service (for the trash copy) is answered late: read before
      // a service user adds an attachment, received after.
      run.holdAt = (label) => label === `details of ${doc.id}`;
      await run.advance(DELETE_DUE_MS);
      run.requestRound(false);
      const held = (p: Parked) => p.kind === 'answer';
      await releaseUntil(run, held, 'the details answer held');
      run.holdAt = () => false;
      const late = run.parked.find(held)!;
      remoteEdits.addAttachment(run.chaos, await serviceDoc(run, doc.id), 'Added meanwhile.pdf');
      await run.release(late);
      await deliverAll(run);
      await run.drain();
    },
    expectInTrace: ['answer held: details of'],
  },
  {
    name: 'seed 8088',
    title:
      "a person's kept edit of a system form (its `(local edit)` copy) goes to the trash with its folder when the service deletes the document",
    plan: SMALL,
    play: async (run) => {
      const { doc } = await keptEditOfSystemForm(run);
      // Then the service deletes the document: the kept edit is the person's work, so the
      // folder is not trashed (row 11) but made again in the service (row 12).
      await deleteInService(run, doc.id);
      await deliverAll(run);
      await settleWatcher(run);
    },
  },
  {
    name: 'seed 2350',
    title:
      'a status the service does not know, typed before the first sync ended, keeps it from ever ending: new folders wait for ever',
    plan: TWO_COMPANIES,
    play: async (run) => {
      // The first round: one company is pulled whole, and its sync ends.
      await run.releaseWhere(at('round-start'), 'the first round');
      await run.releaseWhere(at('catalogue-refresh'), "the first round's catalogue refresh");
      const first = run.parked.find(at('cycle-start'));
      if (!first) throw new Error('the scenario expected the first entity sync parked');
      const other = (p: Parked) => p !== first && p.step === 'cycle-start';
      await run.release(first);
      for (let i = 0; i < 50; i++) {
        const next = run.parked.find((p) => !other(p));
        if (!next) break;
        await run.release(next);
      }
      // A person types a status the service has no type for (row 25: in error, kept, row 29),
      // and the other company's sync fails, so the first sync goes on in the next round.
      const doc = localDocs(run.view)[0];
      if (!doc) throw new Error('the scenario expected a document folder of the first company');
      run.view.editMeta(doc.folder, (meta) => ({ ...meta, status: 'Awaiting Partner Signoff' }));
      run.faults(
        { routes: { '/companies/{ownerId}/documents': 503 } },
        'the document lists answer 503',
      );
      await run.drain();
      const { state } = run.world.life;
      if (state.settings.initialSyncDone())
        throw new Error('the scenario expected the first sync still under way');
      run.faults({}, 'healed');
      for (let i = 0; i < 3; i++) {
        await run.advance(300_000);
        run.requestRound(false);
        await run.drain();
      }
      const refused = state.problems.list().some((p) => p.reason.includes('not a status type'));
      if (!refused) throw new Error('the scenario expected the typed status refused, in error');
      if (!state.settings.initialSyncDone())
        run.ledger.found(
          'the first sync ends',
          'a status typed that the service does not know held the first sync open',
        );
      // Once it has ended, a folder the firm makes is uploaded.
      localEdits.newFolder(run.chaos);
      await settleWatcher(run);
    },
  },
  {
    name: 'seed 6829',
    title:
      'a false alarm of the ledger: a status typed to what the service already had, then changed in the service, looked lost',
    plan: SMALL,
    play: async (run) => {
      const { doc, types } = await synced(run);
      // A service user sets a status; before docsync hears of it, a person types the same.
      run.view.sim.admin.assignStatus(doc.id, { typeId: types[0]!.id });
      run.view.editMeta(doc.folder, (meta) => ({ ...meta, status: types[0]!.name }));
      await settleWatcher(run);
      await deliverAll(run);
      // Then the service's status changes again: the folder rightly shows the new one.
      run.clock.pass(60_000);
      run.view.sim.admin.assignStatus(doc.id, { typeId: types[1]!.id });
      await deliverAll(run);
      const pushed = run.ledger.serviceWrites.some((w) => w.write.kind === 'assign-status');
      if (pushed)
        throw new Error('the scenario expected the same status on both sides, not pushed');
    },
  },
];

/** Every named scenario: `npm test` and `npm run simulate -- --regressions` run them all. */
export const SCENARIOS: readonly Scenario[] = [...ISSUE_25, ...FOUND_SCENARIOS];
