/**
 * The status page of a firm of 5,000 entities, in real Chromium: the state is seeded directly
 * (the page is under test, not the sync), with held deletes, a conflict and items in error.
 * The operator sees the problems first, 50 entities at a time, finds one by searching,
 * filtering, sorting and paging, all done by the server, and approves an entity's held deletes
 * through the operator's own action, which records the decision in the state.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Entity, OwnerRef } from '../../src/domain/types.js';
import { EntityLocks } from '../../src/engine/entity-locks.js';
import { FsLocalStore } from '../../src/local/fs-local-store.js';
import { StateStore } from '../../src/state/state-store.js';
import { operatorActions } from '../../src/web/operator-actions.js';
import { useBrowser } from '../helpers/browser.js';
import { startTestStatusServer } from '../helpers/status-server.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const launch = useBrowser();
const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const ENTITIES = 5000;
const MINUTE = 60_000;

function entityAt(i: number): Entity {
  const id = String(100_000 + i);
  const name =
    i === 4321
      ? 'Zebra Crossing Holdings Pty Ltd'
      : i === 2500
        ? 'Aardvark Family Trust'
        : `Client ${String(i).padStart(4, '0')} Pty Ltd`;
  return i % 5 === 0
    ? { kind: 'trust', id, name, abn: null, type: null, raw: { id, name } }
    : { kind: 'company', id, name, number: null, businessNumber: null, raw: { id, name } };
}

const ownerAt = (i: number): OwnerRef => ({ kind: entityAt(i).kind, id: entityAt(i).id });

/** 5,000 entities synced over the last ten hours, five never; two with errors; the problems. */
function seed(state: StateStore, now: number): void {
  state.transaction(() => {
    for (let i = 0; i < ENTITIES; i++) {
      const entity = entityAt(i);
      const top = entity.kind === 'company' ? 'Companies' : 'Trusts';
      state.entities.upsert({
        entity,
        folder: `${top}/${entity.name}`,
        matchedBy: 'created',
        updatedAt: now,
      });
      if (i % 1000 !== 7) state.cursors.markSynced(ownerAt(i), now - (i % 600) * MINUTE);
    }
  });
  state.problems.record({ owner: ownerAt(3000), path: 'Companies/x/new folder' }, 'refused: 415');
  state.problems.record({ owner: ownerAt(3000), documentId: '77' }, 'download failed: 500');
  state.cursors.markFailed(ownerAt(4000), 'the service answered 503', now);
  const reason = 'the sync would delete 3 documents locally (more than safety.maxDeleteCount 2)';
  const hold = (i: number, documentId: string) => ({
    owner: ownerAt(i),
    documentId,
    side: 'local' as const,
    folder: `${entityAt(i).kind === 'company' ? 'Companies' : 'Trusts'}/${entityAt(i).name}/Minutes [${documentId}]`,
    documentName: `Minutes ${documentId}`,
    reason,
  });
  state.heldDeletes.hold(
    [hold(1234, '7001'), hold(1234, '7002'), hold(1234, '7003')],
    now - 60 * MINUTE,
  );
  state.heldDeletes.hold([hold(2345, '7101'), hold(2345, '7102')], now - 30 * MINUTE);
  state.conflicts.record({
    owner: ownerAt(10),
    documentId: '5001',
    copyPath: 'Companies/Client 0010 Pty Ltd/2024-05-01 Minutes [5001]/minutes (conflict).pdf',
    winner: 'remote',
    occurredAt: now,
  });
  state.activity.record(
    ownerAt(42),
    [
      {
        documentId: '9001',
        documentName: 'Minutes',
        change: 'pulled',
        file: 'minutes.pdf',
        detail: null,
      },
    ],
    Date.UTC(2024, 4, 1, 0, 0, 0),
  );
}

async function startServer(state: StateStore, root: string) {
  const synced: OwnerRef[] = [];
  const local = new FsLocalStore({ root, settleSeconds: 0, metaCache: state.metaFiles });
  const server = await startTestStatusServer(state, {
    actions: {
      operator: operatorActions({
        state,
        local,
        webUrl: 'https://app.example.com',
        onRemoteDelete: 'trash',
        now: Date.now,
        locks: new EntityLocks(),
      }),
      syncEntity: (owner) => {
        synced.push(owner);
        return { kind: 'done', message: 'queued' };
      },
    },
  });
  closers.push(() => server.close());
  return { server, synced };
}

describe('status page at 5,000 entities', () => {
  it('shows the problems first and 50 entities a page, searched, filtered, sorted and paged', async () => {
    const dir = tempDir();
    const state = StateStore.open(path.join(dir, 'docsync.db'));
    closers.push(() => state.close());
    seed(state, Date.now());
    const { server, synced } = await startServer(state, path.join(dir, 'documents'));

    const started = Date.now();
    const html = await (await fetch(server.url)).text();
    const elapsed = Date.now() - started;
    // One page of rows, not the firm: well under a second, and a few tens of kilobytes.
    expect(elapsed).toBeLessThan(1500);
    expect(html.length).toBeLessThan(100_000);

    const browser = await launch();
    const context = await browser.newContext({ timezoneId: 'Australia/Sydney', locale: 'en-AU' });
    const page = await context.newPage();
    await page.goto(server.url);
    const rows = page.locator('#entities tbody tr');
    const range = page.locator('#entity-range');
    const firstName = () => rows.first().locator('.name').textContent();

    expect(await page.locator('h2').allTextContents()).toEqual([
      'Problems',
      `Entities (${ENTITIES})`,
      'Recent changes',
      'Requests and lanes, last hour',
      'Sync',
    ]);
    expect(await page.locator('#problems h3').allTextContents()).toEqual([
      'Held deletes (5)',
      'Conflicts (1)',
      'Items in error (2)',
    ]);
    const held = page.locator('#held');
    expect(await held.innerText()).toContain('more than safety.maxDeleteCount');
    // One row per held delete, the entity held longest first; one button per entity, and one for all.
    expect(await held.locator('tbody tr').count()).toBe(5);
    expect(await held.locator('tbody tr').first().locator('td').allTextContents()).toEqual([
      'Client 1234 Pty Ltd',
      'Minutes 7001',
      'move Companies/Client 1234 Pty Ltd/Minutes [7001] to the trash: the service deleted the document',
      expect.any(String),
      'Approve its 3 deletes',
    ]);
    expect(await held.getByRole('button').allTextContents()).toEqual([
      'Approve all 5 held deletes',
      'Approve its 3 deletes',
      'Approve its 2 deletes',
    ]);
    expect(await rows.count()).toBe(50);
    expect(await range.textContent()).toBe(`Showing 1–50 of ${ENTITIES}.`);
    // Errors first by default: two items in error, then a failed last sync.
    expect(await firstName()).toBe('Client 3000 Pty Ltd');
    expect(await rows.nth(1).locator('.name').textContent()).toBe('Client 4000 Pty Ltd');

    await page.locator('input[name=q]').fill('zebra');
    await page.locator('input[name=q]').press('Enter');
    await page.waitForURL(/q=zebra/);
    expect(await rows.count()).toBe(1);
    expect(await firstName()).toBe('Zebra Crossing Holdings Pty Ltd');
    expect(await range.textContent()).toBe(`Showing 1–1 of 1 matching (${ENTITIES} in all).`);

    await page.locator('input[name=q]').fill('');
    await page.locator('select[name=sort]').selectOption('name');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL(/sort=name/);
    expect(await firstName()).toBe('Aardvark Family Trust');
    await page.getByRole('link', { name: 'Next ›' }).click();
    await page.waitForURL(/page=2/);
    expect(await range.textContent()).toBe(`Showing 51–100 of ${ENTITIES}.`);
    await page.getByRole('link', { name: 'Last »' }).click();
    await page.waitForURL(/page=100/);
    expect(await range.textContent()).toBe(`Showing 4951–5000 of ${ENTITIES}.`);
    expect(await rows.last().locator('.name').textContent()).toBe(
      'Zebra Crossing Holdings Pty Ltd',
    );

    await page.locator('select[name=sort]').selectOption('lag');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL(/sort=lag/);
    // The search form starts again at page 1: stalest first, the never synced before all.
    expect(await range.textContent()).toBe(`Showing 1–50 of ${ENTITIES}.`);
    expect(await rows.first().locator('td').nth(4).textContent()).toBe('never');

    await page.locator('select[name=show]').selectOption('errors');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL(/show=errors/);
    expect(await rows.count()).toBe(2);

    // The feed's time is the viewer's: 00:00 UTC is 10 am in Sydney.
    const when = page.locator('#activity tbody tr').first().locator('time');
    expect(await when.textContent()).toMatch(/^01\/05\/2024, 10:00:00\s?am$/i);
    expect(await when.getAttribute('title')).toBe('2024-05-01 00:00:00 UTC');

    // Approving one entity's deletes records the decision, as `docsync deletes approve` does,
    // and asks for its sync; the page then counts them as decided.
    await page.goto(server.url);
    await held
      .locator('tr', { hasText: 'Client 1234 Pty Ltd' })
      .getByRole('button', { name: 'Approve its 3 deletes' })
      .click();
    await expect
      .poll(() => page.locator('#notice').textContent())
      .toMatch(/^Approved 3 held deletes of Client 1234 Pty Ltd: its sync starts now/);
    expect(
      state.heldDeletes
        .decided()
        .map((h) => [h.owner.id, h.documentId, h.decision])
        .sort(),
    ).toEqual([
      [ownerAt(1234).id, '7001', 'approve'],
      [ownerAt(1234).id, '7002', 'approve'],
      [ownerAt(1234).id, '7003', 'approve'],
    ]);
    expect(synced).toEqual([ownerAt(1234)]);
    expect(await page.locator('#problems h3').first().textContent()).toBe('Held deletes (5)');
    expect(await held.locator('tbody tr').count()).toBe(2);
    expect(await held.getByRole('button').allTextContents()).toEqual(['Approve its 2 deletes']);
    expect(await page.locator('#held-decided').textContent()).toContain('3 decided');
  });
});
