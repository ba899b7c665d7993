import { describe, expect, it } from 'vitest';
import { applyActionResult } from '../../src/domain/apply-action-result.js';
import { planSync } from '../../src/domain/plan-sync.js';
import type { BaseDocument, LocalFile } from '../../src/domain/types.js';
import { baseDoc, file, folderOf, input, NOW, policy, remoteOf } from '../helpers/plan-fixtures.js';

const d = baseDoc();
const [user, system] = folderOf(d).files as [LocalFile, LocalFile];

function fold(
  base: BaseDocument | null,
  plan: ReturnType<typeof planSync>,
  results: Parameters<typeof applyActionResult>[2][],
) {
  return plan.actions.reduce<BaseDocument | null>(
    (b, a, i) => applyActionResult(b, a, results[i] ?? { kind: 'done' }),
    base,
  );
}

describe('applyActionResult', () => {
  it('records a pushed attachment under the id the service gave it', () => {
    const letter = file('letter.pdf', 'l');
    const plan = planSync(
      input({ base: [d], folders: [folderOf(d, { files: [user, system, letter] })] }),
      policy,
      NOW,
    );
    const next = fold(d, plan, [
      {
        kind: 'attachment-created',
        attachment: { id: 'UA9', kind: 'user', name: 'letter.pdf', creationDate: null },
      },
    ]);
    expect(next?.attachments.map((a) => `${a.id}:${a.file}`)).toEqual([
      'UA1075468:minutes.pdf',
      'F1075468:Trustee Minutes.pdf',
      'UA9:letter.pdf',
    ]);
  });

  it('makes a re-plan after the fold find nothing to do', () => {
    const status = {
      id: 's2',
      typeId: '3',
      type: 'SENT TO CLIENT',
      effectiveDate: '2020-07-10',
      createdBy: null,
    };
    const remote = remoteOf(d, {
      status,
      attachments: [
        remoteOf(d).attachments[1]!,
        { id: 'UA9', kind: 'user', name: 'letter.pdf', creationDate: null },
      ],
    });
    const plan = planSync(
      input({ base: [d], folders: [folderOf(d)], changed: [remote] }),
      policy,
      NOW,
    );
    const letter = file('letter.pdf', 'l');
    const results = plan.actions.map((a) =>
      a.kind === 'pull-attachment'
        ? { kind: 'files-written' as const, files: new Map([['UA9', letter]]) }
        : { kind: 'done' as const },
    );
    const next = fold(d, plan, results)!;
    const folder = { ...folderOf(next), files: [system, letter] };
    const again = planSync(
      input({ base: [next], folders: [folder], changed: [remote] }),
      policy,
      NOW,
    );
    expect(again.actions).toEqual([]);
  });

  it('removes the base of a deleted document', () => {
    const plan = planSync(input({ base: [d] }), policy, NOW);
    expect(fold(d, plan, [])).toBeNull();
  });
});
