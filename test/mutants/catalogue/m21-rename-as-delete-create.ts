import type { Mutant } from '../mutant.js';

export default {
  id: 'm21-rename-as-delete-create',
  file: 'src/domain/local-changes.ts',
  bugClass: 'a rename treated as delete+create',
  what: 'a document folder renamed is read as the document deleted and a new one made from the folder',
  relatedTests: [
    'test/unit/detect-changes.test.ts',
    'test/unit/plan-sync-table.test.ts',
    'test/scenarios/local-actions.test.ts',
  ],
  find: `  if (snap.folder !== doc.folder) {
    changes.push({ kind: 'folder-moved', documentId: doc.id, from: doc.folder, to: snap.folder });
  }`,
  replace: `  if (snap.folder !== doc.folder) {
    const { name, documentDate } = newDocumentFromFolder(snap.folder, today);
    return [
      { kind: 'folder-deleted', documentId: doc.id, folder: doc.folder },
      { kind: 'new-folder', folder: snap.folder, name, documentDate, files: snap.files },
    ];
  }`,
} satisfies Mutant;
