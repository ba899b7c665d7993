/**
 * The sync planner: (base, local, remote) → the actions of one entity, each stamped with its
 * row of docs/sync-decision-table.md. Pure (style guide §1): plain data in, plain data out.
 */
import { detectLocalChanges, type FolderNote, type LocalChange } from './local-changes.js';
import { indexLocal } from './local-index.js';
import {
  type Draft,
  forDocument,
  type PlanContext,
  type PlanInput,
  type PlanPolicy,
  planContext,
} from './plan-context.js';
import {
  type DocumentSides,
  planAdopt,
  planDeleted,
  plannedFiles,
  planPresent,
  planPutBack,
} from './plan-document.js';
import { deletionSource, detectRemoteChanges, type RemoteChange } from './remote-changes.js';
import { type DocumentPlan, type SyncPlan, summariseActions } from './sync-actions.js';
import type { OwnerRef } from './types.js';

export type { PlanInput, PlanPolicy } from './plan-context.js';

function group<T>(items: readonly T[], keyOf: (item: T) => string | null): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    if (key === null) continue;
    groups.set(key, [...(groups.get(key) ?? []), item]);
  }
  return groups;
}

function problem(
  row: number,
  folder: string,
  code: Extract<Draft, { kind: 'record-problem' }>['problem'],
  message: string,
): Draft {
  return { kind: 'record-problem', row, folder, problem: code, message };
}

const sameOwner = (a: OwnerRef, b: OwnerRef) => a.kind === b.kind && a.id === b.id;

/** Rows 1, 5, 6, 19, 52: a document the base does not know. */
function planUnknown(ctx: PlanContext, s: DocumentSides): Draft[] {
  const meta = s.folder?.meta;
  if (s.folder && meta && !sameOwner(meta.owner, ctx.owner)) {
    // The service cannot move a document to another entity: this is a move to report, and the
    // document's own entity holds it (row 51) instead of deleting it.
    const why = `holds document ${s.id} of ${meta.owner.kind} ${meta.owner.id}, moved here from its folder; the service cannot move a document to another company or trust, so nothing is uploaded or deleted: move the folder back`;
    return [problem(52, s.folder.folder, 'document-of-another-entity', why)];
  }
  if (s.remoteDoc && s.folder?.meta) return planAdopt(ctx, s.folder, s.remoteDoc);
  if (s.remoteDoc) {
    return [
      {
        kind: 'pull-new-document',
        row: 1,
        document: s.remoteDoc,
        folder: null,
        files: plannedFiles(ctx, s.remoteDoc),
      },
    ];
  }
  // Put back after docsync's own delete went out: the person's document, come back.
  if (s.folder?.meta && ctx.deletedInService.has(s.id)) return planPutBack(ctx, s.folder);
  if (s.folder) {
    const why = `folder names document ${s.id}, which the service has not shown; not synced`;
    return [problem(6, s.folder.folder, 'orphan-document-folder', why)];
  }
  return [];
}

/** Rows 1–18 for one document id. */
function planKnownId(ctx: PlanContext, s: DocumentSides): Draft[] {
  const doc = s.base;
  if (doc === undefined) return planUnknown(ctx, s);
  const held = s.local.find(
    (c): c is FolderNote<'meta-unreadable' | 'deletion-held'> =>
      c.kind === 'meta-unreadable' || c.kind === 'deletion-held',
  );
  if (held?.kind === 'meta-unreadable') {
    return [
      problem(
        13,
        held.folder,
        'meta-unreadable',
        `.document.json unreadable (${held.detail ?? 'broken'}); document left alone`,
      ),
    ];
  }
  if (held) {
    return [
      problem(
        18,
        held.folder,
        'deletion-held',
        'folder missing while another .document.json is unreadable; not deleted',
      ),
    ];
  }
  return planDeleted(ctx, s, doc) ?? planPresent(ctx, s, doc);
}

function documentName(s: DocumentSides): string {
  return s.base?.name ?? s.remoteDoc?.name ?? s.folder?.meta?.name ?? s.id;
}

/** Rows 2–4, 13, 17: folders that hold no known document. */
function planFolders(ctx: PlanContext, local: readonly LocalChange[]): DocumentPlan[] {
  const plans: DocumentPlan[] = [];
  for (const c of local) {
    const key = `folder:${'folder' in c ? c.folder : ''}`;
    let drafts: Draft[] = [];
    let name = key.slice('folder:'.length);
    if (c.kind === 'new-folder') {
      name = c.name;
      const held = ctx.policy.pullOnly || (ctx.policy.heldFolders?.has(c.folder) ?? false);
      const upload = !held || ctx.policy.adoptLocal;
      drafts = upload
        ? [
            {
              kind: 'push-new-document',
              row: 2,
              folder: c.folder,
              name: c.name,
              documentDate: c.documentDate,
              files: c.files,
            },
          ]
        : [
            problem(
              3,
              c.folder,
              'unmatched-local-folder',
              'matches no document of the service; use --adopt-local to upload it',
            ),
          ];
    } else if (c.kind === 'duplicate-folder') {
      drafts = [
        problem(
          17,
          c.folder,
          'duplicate-document-folder',
          `second folder for document ${c.documentId}; ignored`,
        ),
      ];
    } else if (c.kind === 'meta-unreadable' && c.documentId === null) {
      drafts = [
        problem(
          13,
          c.folder,
          'meta-unreadable',
          `.document.json unreadable (${c.detail ?? 'broken'}); folder left alone`,
        ),
      ];
    } else continue;
    plans.push({
      key,
      documentId: null,
      actions: forDocument(ctx, c.kind === 'duplicate-folder' ? c.documentId : null, name, drafts),
    });
  }
  return plans;
}

/**
 * Row 50: the entity folder is gone (moved out of the root, archived, unmounted, replaced by a
 * link). Its absence says nothing about its documents, so the whole entity waits for it.
 * Without a document agreed or placed, the folder is one not made yet, and pulls make it.
 */
export function entityHeld(input: Pick<PlanInput, 'local' | 'base' | 'pullsInDoubt'>): boolean {
  // A pull in doubt counts: planned again, it would place the document a second time, in a
  // folder made anew or through a link left in the folder's place, beside the first.
  return input.local.folder === null && (input.base.size > 0 || (input.pullsInDoubt ?? 0) > 0);
}

/** Row 50's plan: the problem recorded, nothing else. */
function entityFolderMissing(input: PlanInput, ctx: PlanContext): SyncPlan {
  const where = input.knownFolder ?? `the ${input.owner.kind}'s folder`;
  const message = `entity folder missing: ${where} is not in the store (moved, renamed outside its parent, archived, unmounted or replaced by a link); nothing of this ${input.owner.kind} is synced or deleted until it is back`;
  const drafts: Draft[] = [
    { kind: 'record-problem', row: 50, folder: where, problem: 'entity-folder-missing', message },
  ];
  const actions = forDocument(ctx, null, where, drafts);
  return {
    owner: input.owner,
    documents: [{ key: `entity:${input.owner.kind}:${input.owner.id}`, documentId: null, actions }],
    actions,
    summary: summariseActions(actions),
    held: true,
    stats: {
      baseDocuments: input.base.size,
      listedDocuments: input.remote.listedIds?.size ?? null,
    },
  };
}

export function planSync(input: PlanInput, policy: PlanPolicy, now: Date | number): SyncPlan {
  const ctx = planContext(input, policy, now);
  if (entityHeld(input)) return entityFolderMissing(input, ctx);
  const local = detectLocalChanges(
    input.base,
    input.local,
    input.statusTypes,
    ctx.today,
    (input.elsewhere?.unreadable.length ?? 0) > 0,
  );
  const remote = detectRemoteChanges(input.base, input.remote);
  const index = indexLocal(input.base, input.local);
  const localById = group(local, (c) =>
    'documentId' in c && c.kind !== 'duplicate-folder' ? c.documentId : null,
  );
  const remoteById = group(remote, (c: RemoteChange) =>
    c.kind === 'remote-new' ? c.document.id : c.documentId,
  );
  const remoteDocs = new Map(input.remote.changed.map((d) => [d.id, d]));
  const ids = new Set([...input.base.keys(), ...remoteDocs.keys(), ...index.byId.keys()]);
  const documents: DocumentPlan[] = [];
  for (const id of [...ids].sort()) {
    // Row 56: what the service changed is not known, so nothing can be judged against it: a
    // file docsync placed just before a crash would read as a new local file (uploaded twice),
    // a status typed as an edit to push over the service's newer one. The read is retried.
    if (input.remote.unreadIds?.has(id)) continue;
    const s: DocumentSides = {
      id,
      base: input.base.get(id),
      folder: index.byId.get(id) ?? index.metaMissing.get(id),
      local: localById.get(id) ?? [],
      remote: remoteById.get(id) ?? [],
      remoteDoc: remoteDocs.get(id),
      deleted: deletionSource(id, input.remote),
      movedTo: input.elsewhere?.found.get(id),
    };
    const actions = forDocument(ctx, id, documentName(s), planKnownId(ctx, s));
    if (actions.length > 0) documents.push({ key: id, documentId: id, actions });
  }
  documents.push(...planFolders(ctx, local));
  const actions = documents.flatMap((d) => d.actions);
  return {
    owner: input.owner,
    documents,
    actions,
    summary: summariseActions(actions),
    held: false,
    stats: {
      baseDocuments: input.base.size,
      listedDocuments: input.remote.listedIds?.size ?? null,
    },
  };
}
