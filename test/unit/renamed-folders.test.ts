/**
 * What a folder's name says, against the service's (issue 27, case 7): a rename is said from the
 * sync that sees it, for as long as the names differ; a name docsync gave, a clash mark or a
 * name the service changed is no rename here. And which "(local edit)" files are docsync's.
 */
import { describe, expect, it } from 'vitest';
import { keptEditOf } from '../../src/domain/local-folder-names.js';
import { type RenameInput, renamedFolders } from '../../src/domain/renamed-folders.js';

const owner = { kind: 'company', id: '7' } as const;
const entity = 'Companies/Acme Pty Ltd (123 456 789)';
const agreed = `${entity}/2020-07-03 Member Statement [42]`;

function input(change: Partial<RenameInput> & { folder?: string; docFolder?: string }) {
  const docFolder = change.docFolder ?? agreed;
  return {
    owner,
    entityName: 'Acme Pty Ltd',
    knownFolder: entity,
    folder: change.folder ?? entity,
    base: change.base ?? new Map([['42', { name: 'Member Statement', folder: agreed }]]),
    documents: change.documents ?? [{ folder: docFolder, meta: { id: '42', owner } }],
    noted: change.noted ?? new Set<string>(),
  } satisfies RenameInput;
}

describe('renamedFolders', () => {
  it.each([
    ['a folder as docsync named it', {}, []],
    ['a clash mark docsync added', { docFolder: `${entity}/2020-07-03 Member Statement (2)` }, []],
    ['another letter case', { docFolder: `${entity}/member statement` }, []],
    [
      'a document folder renamed',
      { docFolder: `${entity}/For the auditors` },
      [`${entity}/For the auditors`],
    ],
    [
      'still renamed, a sync later',
      {
        base: new Map([['42', { name: 'Member Statement', folder: `${entity}/For the auditors` }]]),
        docFolder: `${entity}/For the auditors`,
        noted: new Set([`${entity}/For the auditors`]),
      },
      [`${entity}/For the auditors`],
    ],
    [
      'renamed in the service: the folder keeps its name, and no rename was seen here',
      { base: new Map([['42', { name: 'Annual Statement', folder: agreed }]]) },
      [],
    ],
    [
      'the entity folder renamed',
      { folder: 'Companies/Our oldest client' },
      ['Companies/Our oldest client'],
    ],
    [
      'the entity folder renamed, its number kept',
      { folder: 'Companies/ACME PTY LTD (123456789)' },
      [],
    ],
    [
      "another entity's document moved here is not a rename",
      {
        docFolder: `${entity}/Elsewhere`,
        documents: [
          { folder: `${entity}/Elsewhere`, meta: { id: '42', owner: { kind: 'trust', id: '9' } } },
        ],
      },
      [],
    ],
  ] as const)('%s', (_case, change, expected) => {
    const notes = renamedFolders(input(change as Parameters<typeof input>[0]));
    expect(notes.map((n) => n.path)).toEqual(expected);
  });

  it('says what the service keeps', () => {
    const [note] = renamedFolders(input({ docFolder: `${entity}/For the auditors` }));
    expect(note!.reason).toBe(
      "renamed here; the service keeps 'Member Statement': a folder's name is not sent to the service, and docsync keeps syncing it by its id",
    );
  });
});

describe('keptEditOf', () => {
  const system = ['Statement.pdf', 'Form 484.PDF'];
  it.each([
    ['Statement (local edit).pdf', 'Statement.pdf'],
    ['Statement (local edit) (2).pdf', 'Statement.pdf'],
    ['statement (LOCAL EDIT).pdf', 'Statement.pdf'],
    ['Form 484 (local edit).PDF', 'Form 484.PDF'],
    // A user's own file with the marker: docsync made no such copy.
    ['Budget (local edit).pdf', null],
    ['Statement (local edit) (draft).pdf', null],
    ['Statement (local edit).docx', null],
  ])('%s → %s', (file, form) => {
    expect(keptEditOf(file, system)).toBe(form);
  });
});
