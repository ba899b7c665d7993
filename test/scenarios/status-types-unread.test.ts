/**
 * A document docsync makes while the service's status types cannot be read: the service gives
 * it its default status, and the new folder's `.document.json` shows that status by its name,
 * which the create's answer carries, as it shows the status of every document read meanwhile.
 * Written blank, every later sync read the blank as a status a person typed there: in error,
 * never pushed, and the folder never showed the service's status (simulation seed 45). So too
 * when the create's answer is lost and the next sync finds the document in the service.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_STATUS_NAME } from '../../src/simulator/document-ops.js';
import { expectInSync, expectQuiet } from '../helpers/sync-assertions.js';
import { useSyncHarness } from '../helpers/sync-harness.js';

const start = useSyncHarness();
const FIRM = { companies: 1, trusts: 0, documentsPerEntity: 2, attachmentsPerDocument: 1, seed: 3 };

/** The first sync done while the status types answer 503, no document carrying the default. */
async function syncedWhileTypesUnread() {
  const h = await start({ seed: FIRM });
  h.sim.admin.setFaults({ routes: { '/documents/statusTypes': 503 } });
  // No document of the firm carries the default status, so no sync learns its name from one.
  const { documents, statusTypes } = await h.remote();
  const other = statusTypes.find((t) => t.name !== DEFAULT_STATUS_NAME)!;
  for (const d of documents)
    if (d.status?.type === DEFAULT_STATUS_NAME)
      h.sim.admin.assignStatus(d.id, { typeId: other.id });
  expect((await h.sync()).result).toBe('ok');
  const [company] = await h.owners();
  return { h, entity: h.entityFolder(company!) };
}

describe('a new folder made while the status types cannot be read', () => {
  it.each([
    ['answered', false],
    ['its answer lost', true],
  ])(
    'its create %s: the folder shows the default status, and nothing is in error once the list is read',
    async (_, lost) => {
      const { h, entity } = await syncedWhileTypesUnread();
      const folder = `${entity}/2026-10-20 New a`;
      h.write(`${folder}/minutes.pdf`, 'minutes');
      if (lost) h.sim.admin.loseNextAnswer('POST', '/documents');

      await h.sync();
      // A create in doubt is settled by the next sync, which finds it in the service.
      if (lost) await h.sync();
      expect(h.sim.admin.lostAnswers()).toBe(lost ? 1 : 0);

      const created = (await h.remote()).documents.filter((d) => d.name === 'New a');
      expect(created.map((d) => d.status?.type)).toEqual([DEFAULT_STATUS_NAME]);
      expect(h.meta(folder)).toMatchObject({ id: created[0]!.id, status: DEFAULT_STATUS_NAME });
      // Read again, the list changes nothing: no blank status in error, nothing pushed.
      h.sim.admin.setFaults({});
      h.resetCounters();
      expect((await h.sync()).result).toBe('ok');
      expect(h.meta(folder).status).toBe(DEFAULT_STATUS_NAME);
      expect(h.state.problems.list()).toEqual([]);
      expect(h.writesToService()).toEqual({});
      await expectInSync(h);
      await expectQuiet(h);
    },
  );
});
