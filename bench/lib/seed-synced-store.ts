/**
 * A store as docsync's initial sync would leave it, made without running one (100,000 documents
 * would take ~20 minutes of details requests, downloads and fsyncs). The real code decides
 * everything: the entity folders, entity rows and status types come from `refreshEntities` and
 * the client against the simulator; each entity is planned by the real `planEntity` (its real
 * document listing, with the details answered from the simulator's state dump through the
 * client's own parser instead of 100,000 requests); each planned `pull-new-document` is then
 * carried out here: the folder and file names from the same naming functions, the base row from
 * `applyActionResult`, `.document.json` from `metaFromBase` + `formatDocumentMeta`, the cursor
 * from `cursorFor`. Only the durability differs: plain writes, no fsync per file, and every base
 * row, cursor and setting in one transaction.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { applyActionResult } from '../../src/domain/apply-action-result.js';
import { entityDeepLink } from '../../src/domain/deep-links.js';
import { documentFolderName } from '../../src/domain/local-folder-names.js';
import { pickFreeName } from '../../src/domain/local-names.js';
import { serviceKey } from '../../src/domain/service-identity.js';
import { cursorFor } from '../../src/domain/timestamps.js';
import type {
  BaseDocument,
  LocalFile,
  OwnerRef,
  RemoteDocument,
  StatusType,
} from '../../src/domain/types.js';
import { extrasOf, metaFromBase } from '../../src/engine/document-meta.js';
import type { EngineDeps } from '../../src/engine/engine-deps.js';
import { recordHeldFolders } from '../../src/engine/held-folders.js';
import { mapLimit } from '../../src/engine/map-limit.js';
import { type EntityJob, planEntity } from '../../src/engine/plan-entity.js';
import { refreshEntities } from '../../src/engine/refresh-entities.js';
import { isIgnored } from '../../src/local/ignore.js';
import { DOCUMENT_META } from '../../src/local/local-store.js';
import { formatDocumentMeta } from '../../src/local/metadata-files.js';
import type { RemoteStore } from '../../src/remote/remote-store.js';
import { parse } from '../../src/remote/schemas.js';
import { generatedBlob, generatedBytes } from '../../src/simulator/blobs.js';
import type { StateDump } from '../../src/simulator/index.js';
import { openEngine } from './engine.js';
import type { SimProcess } from './sim-process.js';

type DumpDocument = StateDump['documents'][number];

export interface SeededStore {
  readonly root: string;
  readonly entities: number;
  readonly documents: number;
  readonly files: number;
  readonly directories: number;
}

export async function seedSyncedStore(sim: SimProcess, dir: string): Promise<SeededStore> {
  const engine = await openEngine(sim, dir);
  try {
    const { deps, state } = engine;
    const startedAt = deps.now();
    const dump = await sim.admin<StateDump>('GET', '/state');
    const byId = new Map(dump.documents.map((d) => [d.id, d]));
    await deps.local.writeMarker();
    const statusTypes = await deps.remote.statusTypes();
    state.statusTypes.replaceAll(statusTypes, deps.now());
    const records = await refreshEntities(deps);
    const planDeps: EngineDeps = { ...deps, remote: detailsFromDump(deps.remote, byId) };
    const bytes = new AttachmentBytes();
    const written = await mapLimit(records, 4, async (record) => {
      const job = await deps.locks.run(record.entity, 'seed', (lease) =>
        planEntity(planDeps, record, {
          lease,
          fullReconcile: true,
          pullOnly: true,
          adoptLocal: false,
          statusTypes,
        }),
      );
      return { job, bases: pullDocuments(engine.root, deps, job, statusTypes, byId, bytes) };
    });
    const now = deps.now();
    state.transaction(() => {
      for (const { job, bases } of written) {
        for (const base of bases) state.base.put(base);
        const outcomes = [...job.listed.values()].map((t) => ({
          lastUpdatedTimestamp: t,
          succeeded: true,
        }));
        const cursor = cursorFor(null, outcomes);
        if (cursor !== null) state.cursors.advance(job.owner, cursor);
        state.cursors.markSynced(job.owner, now, { fullReconcile: true });
      }
      state.settings.markInitialSyncDone();
      // As a first sync leaves it: the state names its service (the marker does too).
      state.settings.recordServiceUrl(serviceKey(sim.apiUrl));
      const folders = written.flatMap(({ job }) =>
        job.snapshot.folder ? [job.snapshot.folder] : [],
      );
      recordHeldFolders(state, folders, [], now);
      const documents = written.reduce((n, w) => n + w.bases.length, 0);
      const cycle = state.cycles.start({ trigger: 'once', fullReconcile: true, startedAt });
      state.cycles.finish(cycle, {
        result: 'ok',
        counts: { entities: records.length, actions: documents, documentsFailed: 0 },
        finishedAt: deps.now(),
      });
    });
    const documents = written.reduce((n, w) => n + w.bases.length, 0);
    const files = written.reduce(
      (n, w) => n + w.bases.reduce((m, b) => m + 1 + b.attachments.length, 0),
      0,
    );
    if (documents !== dump.documents.length) {
      throw new Error(
        `seeded ${documents} documents, the simulator holds ${dump.documents.length}`,
      );
    }
    return {
      root: engine.root,
      entities: records.length,
      documents,
      files,
      directories: records.length + documents,
    };
  } finally {
    engine.close();
  }
}

/** The real client for everything, but details come from the dump (what the service holds). */
function detailsFromDump(remote: RemoteStore, byId: ReadonlyMap<string, DumpDocument>) {
  const route = 'GET /{ownerType}/{ownerId}/documents/{documentId} (state dump)';
  const document = async (owner: OwnerRef, documentId: string): Promise<RemoteDocument> => {
    const doc = byId.get(documentId);
    if (!doc) throw new Error(`document ${documentId} is not in the simulator's state`);
    // The details view of the service: seconds, not microseconds (planEntity restores the
    // listing's precision, as it does for a real answer).
    const details = {
      id: doc.id,
      traceNumber: doc.traceNumber,
      name: doc.name,
      documentDate: doc.documentDate,
      asicDocNumber: doc.asicDocNumber,
      lastUpdatedTimestamp: doc.lastUpdatedTimestamp.slice(0, 19),
      status: doc.status,
      attachments: doc.attachments.map((a) => ({
        id: a.id,
        name: a.name,
        creationDate: a.creationDate,
      })),
    };
    return {
      ...parse.document(details, route, owner),
      lastUpdatedTimestamp: details.lastUpdatedTimestamp,
    };
  };
  // Every other call goes to the real client, on the real client: its methods use private
  // members, which a prototype-based stand-in (Object.create) cannot reach.
  return new Proxy(remote, {
    get(target, property, receiver) {
      if (property === 'document') return document;
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * The simulator's generated bytes for an attachment (tiny PDFs: with no padding they depend on
 * the title only), checked against the sha256 the simulator reports, so a change in how it
 * generates them fails here rather than seeding a tree that differs from the service.
 */
class AttachmentBytes {
  readonly #byName = new Map<string, { bytes: Buffer; sha256: string }>();

  get(attachment: DumpDocument['attachments'][number]): { bytes: Buffer; sha256: string } {
    let entry = this.#byName.get(attachment.name);
    if (!entry) {
      const blob = generatedBlob('', attachment.name, 0);
      if (blob.kind !== 'generated') throw new Error('expected a generated blob');
      const bytes = generatedBytes(blob);
      entry = { bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
      this.#byName.set(attachment.name, entry);
    }
    if (entry.sha256 !== attachment.sha256 || entry.bytes.length !== attachment.size) {
      throw new Error(`attachment ${attachment.id}: not the bytes the simulator serves`);
    }
    return entry;
  }
}

/** Carries out an entity's `pull-new-document` actions as the executor would, minus fsync. */
function pullDocuments(
  root: string,
  deps: EngineDeps,
  job: EntityJob,
  statusTypes: readonly StatusType[],
  byId: ReadonlyMap<string, DumpDocument>,
  bytes: AttachmentBytes,
): BaseDocument[] {
  const entityFolder = job.snapshot.folder ?? job.record.folder;
  if (!entityFolder) throw new Error(`no folder for ${job.owner.kind} ${job.owner.id}`);
  const link = entityDeepLink(deps.settings.webUrl, job.owner);
  // The real store picks a free name against what the entity folder holds.
  const taken = readdirSync(path.join(root, entityFolder));
  const bases: BaseDocument[] = [];
  for (const plan of job.plan.documents) {
    for (const action of plan.actions) {
      if (action.kind !== 'pull-new-document') {
        throw new Error(`initial plan of ${entityFolder} holds ${action.kind}, not only pulls`);
      }
      const doc = action.document;
      const folderName = pickFreeName(
        documentFolderName(doc.documentDate, doc.name, doc.id),
        taken,
        {
          kind: 'folder',
          avoid: (name) => isIgnored(`${entityFolder}/${name}`),
        },
      );
      taken.push(folderName);
      const folder = `${entityFolder}/${folderName}`;
      const dir = path.join(root, folder);
      mkdirSync(dir);
      const inFolder = [DOCUMENT_META];
      const files = new Map<string, LocalFile>();
      for (const planned of action.files) {
        const name = pickFreeName(planned.file, inFolder, {
          avoid: (n) => isIgnored(`${folder}/${n}`) || n === DOCUMENT_META,
        });
        inFolder.push(name);
        const source = byId.get(doc.id)?.attachments.find((a) => a.id === planned.attachment.id);
        if (!source) throw new Error(`attachment ${planned.attachment.id} is not in the dump`);
        const content = bytes.get(source);
        writeFileSync(path.join(dir, name), content.bytes);
        const stats = statSync(path.join(dir, name));
        files.set(planned.attachment.id, {
          name,
          size: stats.size,
          mtimeMs: stats.mtimeMs,
          sha256: content.sha256,
        });
      }
      const base = applyActionResult(null, action, { kind: 'files-written', folder, files });
      if (!base) throw new Error(`no base for document ${doc.id}`);
      const meta = metaFromBase(base, extrasOf(doc), statusTypes, link);
      writeFileSync(path.join(dir, DOCUMENT_META), formatDocumentMeta(meta));
      bases.push(base);
    }
  }
  return bases;
}
