/**
 * No silent skips: what a user put in the folder that docsync will not sync (a name with a line
 * break, a link, a named pipe) is never uploaded, never read as a deletion, and is listed by
 * `docsync status` with what to do about it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { StatusReport } from '../../src/state/status-report.js';
import { useSyncHarness } from '../helpers/sync-harness.js';

const start = useSyncHarness();
const outsides: string[] = [];
afterEach(() => {
  for (const dir of outsides.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const LINK_FILE = 'a symbolic link; docsync does not follow links: move the real file here';
const LINK_FOLDER = 'a symbolic link; docsync does not follow links: move the real folder here';

describe('entries docsync will not sync', () => {
  it('uploads none of them, deletes nothing they replace, and lists them in docsync status', async () => {
    const h = await start();
    await h.sync();
    const [company] = await h.owners();
    const [doc, linkedDoc] = (await h.remote()).documents.filter(
      (d) => d.owner.kind === company!.kind && d.owner.id === company!.id,
    );
    const folder = h.documentFolder(doc!.id)!;
    const linkedFolder = h.documentFolder(linkedDoc!.id)!;
    const agreed = doc!.attachments.find((a) => a.kind === 'user') ?? doc!.attachments[0]!;
    const outside = mkdtempSync(path.join(tmpdir(), 'docsync-outside-'));
    outsides.push(outside);
    const abs = (rel: string) => path.join(h.root, rel);

    h.write(`${folder}/new\nline.txt`, 'meeting notes');
    // The agreed attachment moved elsewhere and linked back; a whole document folder likewise.
    renameSync(abs(`${folder}/${agreed.name}`), path.join(outside, agreed.name));
    symlinkSync(path.join(outside, agreed.name), abs(`${folder}/${agreed.name}`));
    renameSync(abs(linkedFolder), path.join(outside, 'document'));
    symlinkSync(path.join(outside, 'document'), abs(linkedFolder));
    execFileSync('mkfifo', [abs(`${folder}/pipe`)]);
    const before = await h.remote();

    await h.sync();

    const after = await h.remote();
    expect(after.documents.map((d) => [d.id, d.attachments.map((a) => a.name).sort()])).toEqual(
      before.documents.map((d) => [d.id, d.attachments.map((a) => a.name).sort()]),
    );
    const status = await h.cli(['status', '--json']);
    const report = JSON.parse(status.stdout) as StatusReport;
    expect(report.notSynced.map((n) => [n.owner, n.path, n.reason])).toEqual(
      [
        [
          company,
          `${folder}/${agreed.name}`,
          `${LINK_FILE}; until then the service keeps the attachment as last synced`,
        ],
        [
          company,
          `${folder}/new\\nline.txt`,
          'a name with a line break, which the service cannot store: rename it without it',
        ],
        [
          company,
          `${folder}/pipe`,
          'a named pipe, not a file; docsync syncs only regular files: put the file itself here',
        ],
        [company, linkedFolder, LINK_FOLDER],
      ].sort((a, b) => ((a[1] as string) < (b[1] as string) ? -1 : 1)),
    );
    const human = await h.cli(['status']);
    expect(human.stdout).toContain('Not synced: 4\n');
    expect(human.stdout).toContain(`  ${folder}/new\\nline.txt: a name with a line break`);
  });
});
