/**
 * "Not synced": what the scans skipped is kept in the state, with when it was first seen, and
 * shown by `docsync status` (human and JSON) and the status page.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { renderStatus } from '../../src/commands/status-command.js';
import type { StatusServer } from '../../src/web/status-server.js';
import { COMPANY, TRUST, useStateStore } from '../helpers/state-store.js';
import { startTestStatusServer } from '../helpers/status-server.js';

const stateStore = useStateStore();
const servers: StatusServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const LINK = 'a symbolic link; docsync does not follow links: move the real file here';
const NEWLINE = 'a name with a line break, which the service cannot store: rename it without it';
const deed = { path: 'Trusts/Smith/2020-07-03 Deed [1]/deed.pdf', reason: LINK };
const notes = { path: 'Trusts/Smith/2020-07-03 Deed [1]/new\\nline.txt', reason: NEWLINE };
const form = { path: 'Companies/Acme/2021-01-01 Form [2]/pipe', reason: 'a named pipe' };

describe('entries not synced', () => {
  it('keeps when each was first seen while it stays, and forgets it once gone, across restarts', () => {
    const state = stateStore.open();
    expect(state.skipped.replaceForOwner(TRUST, [deed, notes], 1000)).toEqual([deed, notes]);
    expect(state.skipped.replaceForOwner(COMPANY, [form], 1500)).toEqual([form]);
    expect(state.skipped.replaceForOwner(TRUST, [deed], 2000)).toEqual([]);
    state.close();

    const reopened = stateStore.open();
    expect(reopened.skipped.list()).toEqual([
      { owner: COMPANY, ...form, firstSeenAt: 1500, lastSeenAt: 1500 },
      { owner: TRUST, ...deed, firstSeenAt: 1000, lastSeenAt: 2000 },
    ]);
    // A scan that finds nothing to skip clears what was kept, also in a fresh process.
    reopened.skipped.replaceForOwner(COMPANY, [], 3000);
    reopened.skipped.replaceForOwner(TRUST, [deed], 3000);
    expect(reopened.skipped.list().map((s) => [s.path, s.firstSeenAt])).toEqual([
      [deed.path, 1000],
    ]);
  });

  it('keeps links beside the entity folders under no entity', () => {
    const state = stateStore.open();
    const linked = { path: 'Companies/Linked Pty Ltd', reason: LINK };
    const trusts = { path: 'Trusts', reason: LINK };
    expect(state.skipped.replaceEntityFolders([linked, trusts], 10)).toEqual([linked, trusts]);
    state.skipped.replaceForOwner(TRUST, [deed], 10);
    expect(state.skipped.list().map((s) => [s.owner, s.path])).toEqual([
      [null, linked.path],
      [null, trusts.path],
      [TRUST, deed.path],
    ]);
    state.skipped.replaceEntityFolders([], 20);
    expect(state.skipped.list().map((s) => s.path)).toEqual([deed.path]);
  });

  it('shows them in docsync status, human and JSON, and on the status page', async () => {
    const state = stateStore.open();
    state.skipped.replaceForOwner(TRUST, [deed, notes], Date.UTC(2024, 4, 1, 9, 0));
    const report = state.statusReport(Date.UTC(2024, 4, 1, 9, 30));
    expect(report.notSynced).toEqual([
      { owner: TRUST, ...deed, firstSeenAt: '2024-05-01T09:00:00.000Z' },
      { owner: TRUST, ...notes, firstSeenAt: '2024-05-01T09:00:00.000Z' },
    ]);
    const text = renderStatus(report, '/var/lib/docsync/docsync.db');
    expect(text).toContain(
      [
        'Not synced: 2',
        `  ${deed.path}: ${LINK} (since 2024-05-01T09:00:00.000Z)`,
        `  ${notes.path}: ${NEWLINE} (since 2024-05-01T09:00:00.000Z)`,
      ].join('\n'),
    );

    const server = await startTestStatusServer(state);
    servers.push(server);
    const page = await (await fetch(server.url)).text();
    const section = page.slice(page.indexOf('<section id="not-synced">'));
    expect(section).toContain('<h3>Not synced (2)</h3>');
    expect(section).toContain(`<td>${deed.path}</td><td>${LINK}</td>`);
    expect(section).toContain(`<td>${notes.path}</td><td>${NEWLINE}</td>`);
  });
});
