/**
 * A firm's first runs against a service that answers otherwise than api.md guessed, where the
 * public pages are silent (docs/api-contract.md, "Where the shapes are ours"): `docsync run
 * --once` as the user runs it (in this process, on a captured terminal) against the simulator
 * set to answer in each other shape. Nothing of it stops the run: statuses without the status
 * types route keep their names and only their pushes wait, said in one line; every other shape
 * is read as it comes.
 */
import { describe, expect, it } from 'vitest';
import type { ShapeOptions } from '../../src/simulator/index.js';
import { expectInSync } from '../helpers/sync-assertions.js';
import { type SyncHarness, useSyncHarness } from '../helpers/sync-harness.js';

const start = useSyncHarness();

/** The JSON log lines a run wrote on stdout. */
function logLines(stdout: string): { level: number; msg: string }[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg: string });
}

/** A status type the document does not have, by name. */
function otherStatus(current: string | undefined): string {
  return current === 'SENT TO CLIENT' ? 'DOCUMENT PREPARED' : 'SENT TO CLIENT';
}

async function firstDocument(h: SyncHarness) {
  const doc = (await h.remote()).documents.find((d) => d.owner.kind === 'company')!;
  return { doc, folder: h.documentFolder(doc.id)! };
}

describe('the first run without readable status types', () => {
  it.each<[string, ShapeOptions['statusTypes']]>([
    ['answers 404', 'absent'],
    ['answers in a shape docsync cannot read', 'other'],
  ])(
    'when the route %s: pulls everything, says once why status pushes wait, and pushes once it can read them',
    async (_, statusTypes) => {
      const h = await start({ sim: { shapes: { statusTypes } } });

      const first = await h.cli(['run', '--once']);

      // Everything pulled, each status shown by the name its document carries: in sync (0).
      expect(first.code, first.stdout + first.stderr).toBe(0);
      await expectInSync(h);
      const waits = logLines(first.stdout).filter((l) => l.msg.startsWith('status pushes wait:'));
      expect(waits).toHaveLength(1);
      expect(waits[0]!.msg).toContain("the service's status types could not be read");

      // A status typed in a folder waits: the run ends partial (3), the folder keeps the edit.
      const { doc, folder } = await firstDocument(h);
      const wanted = otherStatus(doc.status?.type);
      h.editMeta(folder, (meta) => ({ ...meta, status: wanted }));
      const second = await h.cli(['run', '--once']);
      expect(second.code, second.stdout + second.stderr).toBe(3);
      const waiting = logLines(second.stdout).filter((l) =>
        l.msg.includes(`"${wanted}" is not pushed yet`),
      );
      expect(waiting).toHaveLength(1);
      expect((await h.remoteDoc(doc.id))?.status?.type).toBe(doc.status?.type);
      expect(h.meta(folder).status).toBe(wanted);

      // The route answers again: the edit goes out, and both sides agree.
      h.sim.admin.setShapes({});
      const third = await h.cli(['run', '--once']);
      expect(third.code, third.stdout + third.stderr).toBe(0);
      expect((await h.remoteDoc(doc.id))?.status?.type).toBe(wanted);
      await expectInSync(h);
    },
  );
});

describe('the first run reads the shapes the pages are silent on', () => {
  it.each<[string, ShapeOptions]>([
    ['the company list under another key', { lists: { companies: 'items' } }],
    ['the trust list as a bare array', { lists: { trusts: '' } }],
    ['document lists under another key', { lists: { documents: 'results' } }],
    ['status types as a bare array', { statusTypes: 'bare' }],
    ['download links as {"href": …}', { link: 'href' }],
    ['download links as {"link": …}', { link: 'link' }],
    ['download links as the answer itself', { link: 'string' }],
    ['download links as a redirect', { link: 'redirect' }],
    ['change times written with +0000', { timestamps: '+0000' }],
    ['change times written with +00:00', { timestamps: '+00:00' }],
    ['change times written in another zone', { timestamps: '+10:00' }],
    ['change times left out of the document lists', { timestamps: 'missing' }],
  ])('%s: everything is pulled, in sync', async (_, shapes) => {
    const h = await start({ sim: { shapes } });

    const run = await h.cli(['run', '--once']);

    expect(run.code, run.stdout + run.stderr).toBe(0);
    await expectInSync(h);
  });

  it('keeps the change time as UTC, whatever zone the service wrote it in', async () => {
    const h = await start({ sim: { shapes: { timestamps: '+10:00' } } });
    expect((await h.cli(['run', '--once'])).code).toBe(0);
    const { doc, folder } = await firstDocument(h);
    // The simulator keeps UTC (api.md's form): the folder shows the same instant.
    h.sim.admin.setShapes({});
    const plain = (await h.sim.admin.dump()).documents.find((d) => d.id === doc.id)!;
    expect(h.meta(folder).lastUpdatedTimestamp).toBe(plain.lastUpdatedTimestamp);
  });

  it('reads a list under the key service.shapes.lists names, and names the setting when it is not there', async () => {
    const h = await start({ sim: { shapes: { lists: { companies: 'items' } } } });

    const named = await h.cli(['run', '--once'], {
      service: { shapes: { lists: { companies: 'items' } } },
    });
    const wrong = await h.cli(['run', '--once'], {
      service: { shapes: { lists: { companies: 'records' } } },
    });

    expect(named.code, named.stdout + named.stderr).toBe(0);
    await expectInSync(h);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain(
      'expected the list under `records` (service.shapes.lists.companies), got an object with',
    );
    expect(wrong.stderr).toContain('Correct service.shapes.lists.companies to the key');
  });

  it('uploads a file in the multipart part service.shapes.uploadField names', async () => {
    const h = await start({ sim: { shapes: { uploadField: 'upload' } } });
    const config = { service: { shapes: { uploadField: 'upload' } } };
    expect((await h.cli(['run', '--once'], config)).code).toBe(0);
    const { doc, folder } = await firstDocument(h);
    h.write(`${folder}/reply.pdf`, 'our reply');

    const run = await h.cli(['run', '--once'], config);

    expect(run.code, run.stdout + run.stderr).toBe(0);
    const names = (await h.remoteDoc(doc.id))!.attachments.map((a) => a.name);
    expect(names).toContain('reply.pdf');
    await expectInSync(h);
  });
});
