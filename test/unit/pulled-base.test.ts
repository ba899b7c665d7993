/**
 * The base a pull of a new document commits, read back from the folder it built when a crash
 * came before the commit (engine/settle-pulls.ts), and what the planner then does with the
 * document a service user deleted meanwhile: what it would have done had the pull committed.
 */
import { describe, expect, it } from 'vitest';
import { planSync } from '../../src/domain/plan-sync.js';
import { pulledBase } from '../../src/domain/pulled-base.js';
import {
  baseDoc,
  file,
  folderOf,
  input,
  kindsAndRows,
  NOW,
  policy,
  remoteOf,
} from '../helpers/plan-fixtures.js';

const d = baseDoc();
/** The document as the pull read it, and the folder exactly as it built it. */
const pulled = remoteOf(d, { lastUpdatedTimestamp: d.lastUpdatedTimestamp });
const built = folderOf(d);

/** The document's plan, with the base read back and the service's full listing without it. */
function planDeleted(folder = built) {
  const base = pulledBase(pulled, folder);
  if (!base) throw new Error('expected a base');
  return kindsAndRows(
    planSync(input({ base: [base], folders: [folder], listedIds: ['other'] }), policy, NOW),
  );
}

describe('pulledBase', () => {
  it('is the base the pull would have committed, for the folder as it built it', () => {
    expect(pulledBase(pulled, built)).toEqual(d);
  });

  it("keeps the pull's status, so a status typed since is the person's edit to push", () => {
    const typed = folderOf(d, { meta: { ...built.meta!, status: 'SENT TO CLIENT' } });
    const base = pulledBase(pulled, typed)!;
    expect(base.statusTypeId).toBe(d.statusTypeId);
    const plan = planSync(input({ base: [base], folders: [typed] }), policy, NOW);
    expect(plan.actions.map((a) => a.kind)).toContain('push-status');
  });

  it('keeps an attachment whose file a person changed since, with the bytes the pull placed: the replace is pushed (row 31)', () => {
    const [user] = built.files;
    const changed = folderOf(d, { files: [file(user!.name, 'edited'), ...built.files.slice(1)] });
    const base = pulledBase(pulled, changed)!;
    expect(base.attachments.map((a) => [a.file, a.sha256])).toEqual([
      ['minutes.pdf', 'u1'],
      ['Trustee Minutes.pdf', 's1'],
    ]);
    const plan = planSync(input({ base: [base], folders: [changed] }), policy, NOW);
    expect(kindsAndRows(plan)).toEqual(['push-replaced-attachment:31']);
  });

  it('keeps an attachment whose file a person removed since: its delete is pushed (row 32), not forgotten', () => {
    const gone = folderOf(d, { files: built.files.slice(1) });
    const base = pulledBase(pulled, gone)!;
    expect(base.attachments.map((a) => a.file)).toEqual(['minutes.pdf', 'Trustee Minutes.pdf']);
    const plan = planSync(input({ base: [base], folders: [gone] }), policy, NOW);
    expect(kindsAndRows(plan)).toEqual(['push-delete-attachment:32']);
  });

  it('is nothing for a folder naming another document', () => {
    const other = folderOf(baseDoc('1075469'));
    expect(pulledBase(pulled, other)).toBeNull();
  });

  it('lets a service delete trash the untouched folder (row 11), not leave it unsynced (row 6)', () => {
    expect(planDeleted()).toEqual(['trash-local-document:11']);
    // Without the pull's record, the same folder names a document nobody knows.
    const orphan = planSync(input({ folders: [built], listedIds: ['other'] }), policy, NOW);
    expect(kindsAndRows(orphan)).toEqual(['record-problem:6']);
  });

  it('makes the document again from a folder a person changed since (row 12): modify beats delete', () => {
    const added = folderOf(d, { files: [...built.files, file('notes.pdf', 'n')] });
    expect(planDeleted(added)).toEqual(['restore-document:12']);
  });
});

describe('an entity folder gone while a pull is in doubt', () => {
  it('holds the entity (row 50) instead of pulling the document a second time', () => {
    const sides = { entityFolder: null, changed: [pulled] };
    expect(kindsAndRows(planSync(input({ ...sides, pullsInDoubt: 1 }), policy, NOW))).toEqual([
      'record-problem:50',
    ]);
    // With nothing agreed nor placed, the folder is one not made yet: the pull makes it.
    expect(kindsAndRows(planSync(input(sides), policy, NOW))).toEqual(['pull-new-document:1']);
  });
});
