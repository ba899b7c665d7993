/**
 * The chaos suite's edit generators (test/chaos/local-edits.ts, remote-edits.ts) made to work on
 * a simulated world: they were written against a SyncHarness, and use a handful of its
 * methods, which this view gives them with what the simulation adds to each edit:
 * - a file a user writes gets its mtime from the virtual clock (a unique millisecond each, so
 *   two writes of one size are never taken for one), and the watcher hears of it;
 * - a status typed into `.document.json` is recorded as a local status edit (sim-ledger.ts);
 * - every change a service user makes queues the webhook the service would send for it
 *   (sim-webhooks.ts), which the seed then delivers, late, twice, or never; a status they set is
 *   recorded as a remote status edit.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { keptEditOf } from '../../src/domain/local-folder-names.js';
import type { DocumentMeta, OwnerRef } from '../../src/domain/types.js';
import type { AdminNewAttachment, AdminNewDocument, Simulator } from '../../src/simulator/index.js';
import { type SyncHarness, sha256 } from '../helpers/sync-harness.js';
import { fileKey } from './sim-book.js';
import type { SimLedger } from './sim-ledger.js';
import type { WebhookQueue } from './sim-webhooks.js';

export interface ViewParts {
  readonly sim: Simulator;
  readonly root: string;
  readonly ledger: SimLedger;
  readonly webhooks: WebhookQueue;
  /** Tells the daemon's watcher of a change at this path (relative to the root). */
  readonly touched: (relPath: string) => void;
}

/** What the chaos generators call of a SyncHarness, on the simulated world. */
export function simView(parts: ViewParts): SyncHarness {
  const { root, ledger } = parts;
  const abs = (rel: string) => path.join(root, ...rel.split('/'));
  let mtimeSerial = 0;
  const write = (rel: string, data: string | Uint8Array) => {
    if (path.posix.basename(rel) !== '.document.json') personWrote(rel, data);
    mkdirSync(path.dirname(abs(rel)), { recursive: true });
    writeFileSync(abs(rel), data);
    const mtime = (Date.now() + ++mtimeSerial) / 1000;
    utimesSync(abs(rel), mtime, mtime);
    parts.touched(rel);
  };
  const meta = (folder: string) =>
    JSON.parse(readFileSync(abs(`${folder}/.document.json`), 'utf8')) as DocumentMeta;
  // The book learns whose document a person's file went into, as `.document.json` says now (a
  // folder a person made has none yet), and whether it was written over a system form or over
  // the `(local edit)` copy kept of one: docsync keeps either in the folder alone (rows 35, 37).
  const personWrote = (rel: string, data: string | Uint8Array) => {
    const folder = path.posix.dirname(rel);
    const name = path.posix.basename(rel);
    let found: DocumentMeta | null = null;
    try {
      found = meta(folder);
    } catch {
      // No `.document.json` (yet), or one a person broke: no document to name.
    }
    const forms = (found?.attachments ?? []).filter((a) => a.kind === 'system').map((a) => a.file);
    const old = fileSha(abs(rel));
    // A form docsync has placed but not yet written into `.document.json` (its pull parked
    // between the two) is a form all the same: the bytes written over are the form's.
    const writtenOver =
      old === null ? undefined : ledger.book.files.get(fileKey(found?.id ?? null, old));
    const overForm = writtenOver?.kind === 'system' && writtenOver.name === name;
    const overSystem = forms.includes(name) || keptEditOf(name, forms) !== null || overForm;
    // Bytes written over are the person's to lose when the chaos ledger says so (not the
    // original of a system form, which comes back).
    if (old && ledger.userDeleted.has(old))
      ledger.book.deleted.add(fileKey(found?.id ?? null, old));
    const documentId = found?.id ?? null;
    ledger.book.file({ sha: sha256(data), documentId, name, kind: 'user', overSystem }, 'person');
    if (old && old !== sha256(data))
      ledger.book.writtenOver.set(fileKey(documentId, sha256(data)), fileKey(documentId, old));
  };
  /** Files a person removes, each from its document (by the `.document.json` beside it). */
  const personRemoved = (rel: string) => {
    if (existsSync(abs(`${rel}/.document.json`)))
      try {
        const id = meta(rel).id;
        ledger.book.folderDeleted(id, ledger.nextSeq(), Date.now());
      } catch {
        // A broken `.document.json` names no document.
      }
    const files = [...treeOf(root)].filter(([f]) => f === rel || f.startsWith(`${rel}/`));
    for (const [file, sha] of files) {
      if (path.posix.basename(file) === '.document.json' || !ledger.userDeleted.has(sha)) continue;
      let id: string | null = null;
      try {
        id = meta(path.posix.dirname(file)).id;
      } catch {
        // A folder with no document yet.
      }
      ledger.book.deleted.add(fileKey(id, sha));
    }
  };
  const owners = new Map<string, OwnerRef>();
  const dump = async () => {
    const state = await parts.sim.admin.dump();
    for (const doc of state.documents) owners.set(doc.id, doc.owner);
    return state;
  };
  const view = {
    sim: { ...parts.sim, admin: adminWithWebhooks(parts, owners) },
    root,
    tree: () => treeOf(root),
    meta,
    editMeta(folder: string, change: (meta: DocumentMeta) => DocumentMeta) {
      const before = meta(folder);
      const after = change(before);
      write(`${folder}/.document.json`, JSON.stringify(after, null, 2));
      if (after.status !== before.status)
        ledger.statusEdit(after.id, after.status, 'local', before.status);
    },
    write,
    read: (rel: string) => readFileSync(abs(rel)),
    exists: (rel: string) => existsSync(abs(rel)),
    remove(rel: string) {
      personRemoved(rel);
      rmSync(abs(rel), { recursive: true, force: true });
      parts.touched(rel);
    },
    rename(from: string, to: string) {
      mkdirSync(path.dirname(abs(to)), { recursive: true });
      renameSync(abs(from), abs(to));
      parts.touched(from);
      parts.touched(to);
    },
    remote: dump,
    async remoteDoc(id: string) {
      return (await dump()).documents.find((d) => d.id === id);
    },
    async owners(): Promise<OwnerRef[]> {
      const state = await dump();
      return [
        ...state.companies.map((c) => ({ kind: 'company' as const, id: String(c.id) })),
        ...state.trusts.map((t) => ({ kind: 'trust' as const, id: String(t.id) })),
      ];
    },
  };
  // The generators reach only the members above; the rest of a SyncHarness is the scenario
  // tests' (a CLI, a cycle of its own), which a simulated world does not have.
  return view as unknown as SyncHarness;
}

/**
 * The admin API with each change's webhook queued, as the service sends one per change. The
 * owner of a document is known from the last listing the generators read (they pick from it).
 */
function adminWithWebhooks(
  { sim, webhooks, ledger }: ViewParts,
  owners: ReadonlyMap<string, OwnerRef>,
): Simulator['admin'] {
  const admin = sim.admin;
  const queue = (documentId: string | number, subType: string) => {
    const owner = owners.get(String(documentId));
    if (owner) webhooks.queue(owner, String(documentId), subType);
  };
  return Object.assign(Object.create(admin) as Simulator['admin'], {
    createDocument(input: AdminNewDocument) {
      const doc = admin.createDocument(input);
      const id = String(doc.id);
      ledger.book.document({ ...doc, id, owner: input.owner }, 'service user');
      ledger.statusEdit(id, doc.status?.type ?? null, 'remote');
      webhooks.queue(input.owner, id, 'newDocument');
      return doc;
    },
    assignStatus(documentId: string | number, input: { typeId: number }) {
      const status = admin.assignStatus(documentId, input);
      ledger.statusEdit(String(documentId), status.type, 'remote');
      queue(documentId, 'newStatus');
      return status;
    },
    addAttachment(documentId: string | number, input: AdminNewAttachment) {
      const attachment = admin.addAttachment(documentId, input);
      const kind = input.system ? 'system' : 'user';
      const file = { sha: sha256(input.bytes), documentId: String(documentId), name: input.name };
      ledger.book.file({ ...file, kind }, 'service user', attachment.id);
      queue(documentId, 'newAttachment');
      return attachment;
    },
    deleteAttachment(documentId: string | number, attachmentId: string) {
      admin.deleteAttachment(documentId, attachmentId);
      ledger.book.attachmentDeleted(attachmentId, ledger.nextSeq());
      queue(documentId, 'statusChange');
    },
    deleteDocument(documentId: string | number) {
      admin.deleteDocument(documentId);
      ledger.book.serviceDeleted.add(String(documentId));
      queue(documentId, 'deleteDocument');
    },
  });
}

function fileSha(file: string): string | null {
  try {
    return sha256(readFileSync(file));
  } catch {
    return null;
  }
}

/** The folder outside `.docsync/`, links left out: relative path → sha256. */
export function treeOf(root: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (rel: string) => {
    const dir = rel ? path.join(root, ...rel.split('/')) : root;
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isSymbolicLink() || child === '.docsync') continue;
      if (entry.isDirectory()) walk(child);
      else files.set(child, sha256(readFileSync(path.join(dir, entry.name))));
    }
  };
  walk('');
  return files;
}
