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
} from './plan-document.js';
import { deletionSource, detectRemoteChanges, type RemoteChange } from './remote-changes.js';
import { type DocumentPlan, type SyncPlan, summariseActions } from './sync-actions.js';

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

/** Rows 1, 5, 6: a document the base does not know. */
function planUnknown(ctx: PlanContext, s: DocumentSides): Draft[] {
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

export function planSync(input: PlanInput, policy: PlanPolicy, now: Date | number): SyncPlan {
  const ctx = planContext(input, policy, now);
  const local = detectLocalChanges(input.base, input.local, input.statusTypes, ctx.today);
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
    const s: DocumentSides = {
      id,
      base: input.base.get(id),
      folder: index.byId.get(id) ?? index.metaMissing.get(id),
      local: localById.get(id) ?? [],
      remote: remoteById.get(id) ?? [],
      remoteDoc: remoteDocs.get(id),
      deleted: deletionSource(id, input.remote),
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
    stats: {
      baseDocuments: input.base.size,
      listedDocuments: input.remote.listedIds?.size ?? null,
    },
  };
}
