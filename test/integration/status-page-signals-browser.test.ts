/**
 * The status page says what is so (issue 27, case 8), read in real Chromium. Its header said a
 * green "Healthy", and a green "No held deletes, failed pushes…" came first, while two conflicts
 * and an item in error sat below; "Keep both" was offered on a status conflict and refused in
 * the command line's words; an entity with an error showed an empty "Last error"; `?show=trusts`
 * showed every entity; a search that matched nothing said "Showing none match.".
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Entity, OwnerRef } from '../../src/domain/types.js';
import { EntityLocks } from '../../src/engine/entity-locks.js';
import { FsLocalStore } from '../../src/local/fs-local-store.js';
import type { StateStore } from '../../src/state/state-store.js';
import { operatorActions } from '../../src/web/operator-actions.js';
import type { RuntimeStatus } from '../../src/web/runtime-status.js';
import type { StatusServer } from '../../src/web/status-server.js';
import { useBrowser } from '../helpers/browser.js';
import { useStateStore } from '../helpers/state-store.js';
import { IDLE_RUNTIME, startTestStatusServer } from '../helpers/status-server.js';
import { useTempDir } from '../helpers/temp-dir.js';

const stateStore = useStateStore();
const tempDir = useTempDir();
const launch = useBrowser();
const servers: StatusServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

function entity(state: StateStore, kind: 'company' | 'trust', id: string, name: string): OwnerRef {
  const record: Entity =
    kind === 'trust'
      ? { kind, id, name, abn: null, type: null, raw: {} }
      : { kind, id, name, number: null, businessNumber: null, raw: {} };
  const top = kind === 'trust' ? 'Trusts' : 'Companies';
  state.entities.upsert({
    entity: record,
    folder: `${top}/${name}`,
    matchedBy: 'created',
    updatedAt: 0,
  });
  state.cursors.markSynced({ kind, id }, Date.now() - 60_000);
  return { kind, id };
}

/** A firm that synced a minute ago: two companies and a trust, nothing waiting. */
function syncedFirm(state: StateStore) {
  const acme = entity(state, 'company', '1', 'Acme Pty Ltd');
  entity(state, 'company', '2', 'Bolt Pty Ltd');
  const smith = entity(state, 'trust', '3', 'Smith Family Trust');
  const cycle = state.cycles.start({ trigger: 'cron', startedAt: Date.now() - 61_000 });
  state.cycles.finish(cycle, { result: 'ok', finishedAt: Date.now() - 60_000 });
  return { acme, smith };
}

async function open(state: StateStore, runtime: Partial<RuntimeStatus> = {}) {
  const root = tempDir();
  const server = await startTestStatusServer(state, {
    config: { store: { root } },
    runtime: () => ({ ...IDLE_RUNTIME, ...runtime }),
    actions: {
      operator: operatorActions({
        state,
        local: new FsLocalStore({ root, settleSeconds: 0, metaCache: state.metaFiles }),
        webUrl: 'http://service.test/web',
        onRemoteDelete: 'trash',
        now: Date.now,
        locks: new EntityLocks(),
      }),
      syncEntity: () => ({ kind: 'done', message: 'queued' }),
    },
  });
  servers.push(server);
  const page = await (await launch()).newPage();
  return { page, url: server.url };
}

describe('the status page header and what it offers (issue 27, case 8)', () => {
  it('says Healthy only when nothing waits; Needs attention (N), problems first, whenever something does', async () => {
    const state = stateStore.open();
    const { acme, smith } = syncedFirm(state);
    const { page, url } = await open(state);

    await page.goto(url);
    expect(await page.locator('#health').innerText()).toBe('Healthy');
    expect(await page.locator('#no-problems').getAttribute('class')).toBe('ok');

    // A status conflict (the local status lost) and an item in error of the trust.
    state.conflicts.record({
      owner: acme,
      documentId: '100',
      copyPath: 'Companies/Acme Pty Ltd/2024-06-30 Minutes [100]',
      winner: 'remote',
      detail: 'status changed on both sides; the service was newer',
      subject: { kind: 'status', lost: 'DOCUMENT PREPARED' },
      occurredAt: Date.now(),
    });
    state.problems.record(
      { owner: smith, documentId: '200' },
      'reading the document failed: the service answered 500',
    );
    await page.goto(url);
    const header = page.locator('#health');
    expect(await header.locator('strong').innerText()).toBe('Needs attention (2)');
    expect(await header.innerText()).not.toContain('Healthy');
    expect(await header.locator('li').allInnerTexts()).toEqual([
      '1 conflict to look at',
      '1 item in error',
    ]);
    expect(await header.locator('a').first().getAttribute('href')).toBe('#conflicts');
    // Problems first: the lists with something, then the line naming the empty ones, not green.
    const problems = await page
      .locator('#problems > *')
      .evaluateAll((nodes) => nodes.map((n) => n.id || n.tagName));
    expect(problems).toEqual(['H2', 'conflicts', 'errors', 'no-problems']);
    expect(await page.locator('#no-problems').getAttribute('class')).toBe('none');

    // Only what can succeed: a document has one status, so no "Keep both".
    const buttons = await page.locator('#conflicts button').allInnerTexts();
    expect(buttons).toEqual(['Keep the local version', "Keep the service's version"]);
    // Asked anyway (a page drawn by an older docsync), the refusal is in the page's words.
    const token = await page.locator('meta[name="csrf-token"]').getAttribute('content');
    const answer = await fetch(`${url}/actions/resolve-conflict`, {
      method: 'POST',
      headers: { accept: 'application/json', 'x-csrf-token': token! },
      body: new URLSearchParams({ conflict: '1', resolution: 'keep-both' }),
    });
    const refusal = { status: answer.status, ...((await answer.json()) as object) };
    expect(refusal).toEqual({
      status: 409,
      ok: false,
      message:
        'This conflict cannot be resolved that way: a document has one status, so both cannot be kept: keep one of the two; nothing changed.',
    });

    // The entity with an error shows it.
    const smithRow = page.locator('#entities tr', { hasText: 'Smith Family Trust' });
    expect(await smithRow.innerText()).toContain('the service answered 500');
  });

  it('says Cannot sync, with why, above what needs attention', async () => {
    const state = stateStore.open();
    const { smith } = syncedFirm(state);
    state.problems.record({ owner: smith, path: 'Trusts/Smith Family Trust/x' }, 'refused');
    const { page, url } = await open(state, { tokenValid: false });
    await page.goto(url);
    const strong = await page.locator('#health strong').allInnerTexts();
    expect(strong).toEqual(['Cannot sync', 'Needs attention (1)']);
    expect(await page.locator('#health').innerText()).toContain('docsync auth login');
  });

  it('shows trusts only for ?show=trusts, and says so plainly when nothing matches', async () => {
    const state = stateStore.open();
    syncedFirm(state);
    const { page, url } = await open(state);
    await page.goto(`${url}/?show=trusts`);
    const names = await page.locator('#entities .name').allInnerTexts();
    expect(names).toEqual(['Smith Family Trust']);
    expect(await page.locator('#entity-range').innerText()).toBe(
      'Showing 1–1 of 1 matching (3 in all).',
    );

    await page.goto(`${url}/?q=nobody`);
    expect(await page.locator('#entity-range').innerText()).toBe('No entity matches (3 in all).');
  });
});
