import { describe, expect, it } from 'vitest';
import { describePlan, summaryLine } from '../../src/domain/describe-plan.js';
import { planSync } from '../../src/domain/plan-sync.js';
import { baseDoc, file, folderOf, input, NOW, policy, remoteOf } from '../helpers/plan-fixtures.js';

const d = baseDoc('1075468', { name: 'Trustee Minutes or Resolutions' });
const meta = folderOf(d).meta!;

describe('describePlan', () => {
  it('says each action as a sentence with its row', () => {
    const plan = planSync(
      input({
        base: [d, baseDoc('2002')],
        folders: [
          folderOf(d, { meta: { ...meta, status: 'Sent to client' } }),
          {
            folder: 'Trusts/Smith Family Trust/Loan Agreement',
            meta: null,
            files: [file('loan.pdf', 'x')],
          },
        ],
        changed: [remoteOf(baseDoc('3003'))],
      }),
      policy,
      NOW,
    );
    expect(describePlan(plan)).toEqual([
      'row 20: push status SENT TO CLIENT of document 1075468 (Trustee Minutes or Resolutions), effective 2020-07-10',
      'row 8: delete document 2002 (Trustee Minutes) in the service',
      'row 1: download new document 3003 (Trustee Minutes) with 2 attachment(s)',
      'row 2: create new document (Loan Agreement) dated 2020-07-10 from folder "Trusts/Smith Family Trust/Loan Agreement" and upload 1 file(s)',
    ]);
    expect(summaryLine(plan, 'Smith Family Trust')).toBe(
      'Smith Family Trust: pull 1 new document; push 1 new document, 1 status; delete 1 document in the service',
    );
  });

  it('says deletes by side, a restore by itself, and the conflicts it settles', () => {
    const kept = baseDoc('4004');
    const changed = baseDoc('5005');
    const plan = planSync(
      input({
        base: [kept, changed],
        folders: [
          folderOf(kept),
          folderOf(changed, { files: [...folderOf(changed).files, file('new.pdf', 'n')] }),
        ],
        deletedIds: [kept.id, changed.id],
      }),
      { ...policy, onRemoteDelete: 'delete' },
      NOW,
    );
    expect(summaryLine(plan, 'Smith Family Trust')).toBe(
      'Smith Family Trust: delete 1 document locally; restore 1 document; 1 conflict',
    );
  });

  it('says an entity with nothing to do is in sync', () => {
    const plan = planSync(input({ base: [d], folders: [folderOf(d)] }), policy, NOW);
    expect(describePlan(plan)).toEqual([]);
    expect(summaryLine(plan)).toBe('trust 20053: in sync');
  });
});
