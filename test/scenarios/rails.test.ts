/**
 * Safety rails and `--dry-run` (daemon.md "Sync rules", exit codes), through the built CLI
 * where the exit code is what the user sees: a rail that trips deletes nothing and exits 2,
 * `--force-deletes` lifts the delete rails, and a dry run changes nothing on either side.
 */
import { describe, expect, it } from 'vitest';
import { expectInSync } from '../helpers/sync-assertions.js';
import { type SyncHarness, useSyncHarness } from '../helpers/sync-harness.js';

const start = useSyncHarness();

/** Four documents per entity, so deletes can cross 50 % without emptying an entity. */
const FIRM = { companies: 1, trusts: 1, documentsPerEntity: 4, attachmentsPerDocument: 1, seed: 3 };

async function synced(settings: { maxDeleteCount?: number; maxDeletePercent?: number } = {}) {
  const h = await start({ seed: FIRM, settings });
  expect((await h.sync()).result).toBe('ok');
  const dump = await h.remote();
  const [company, trust] = await h.owners();
  const idsOf = (kind: string) =>
    dump.documents.filter((d) => d.owner.kind === kind).map((d) => d.id);
  return {
    h,
    company: company!,
    trust: trust!,
    companyDocs: idsOf('company'),
    trustDocs: idsOf('trust'),
  };
}

/** Both sides as they are, to show that a run changed nothing. */
async function sides(h: SyncHarness) {
  const dump = await h.remote();
  return { documents: dump.documents, tree: h.tree(), mtimes: h.mtimes() };
}

describe('safety rails', () => {
  it('without .docsync-root nothing runs: exit 2, neither side touched', async () => {
    const { h, companyDocs } = await synced();
    h.remove('.docsync-root');
    h.remove(h.documentFolder(companyDocs[0]!)!);
    h.sim.admin.deleteDocument(companyDocs[1]!);
    const before = await sides(h);
    h.resetCounters();

    const { code, stderr } = await h.cli(['run', '--once']);

    expect(code).toBe(2);
    expect(stderr).toContain('.docsync-root');
    expect(await sides(h)).toEqual(before);
    expect(h.writesToService()).toEqual({});
  });

  it('local deletes over maxDeletePercent delete nothing and exit 2; --force-deletes deletes them', async () => {
    const { h, companyDocs, trustDocs } = await synced();
    const gone = [...companyDocs.slice(0, 3), ...trustDocs.slice(0, 2)];
    for (const id of gone) h.remove(h.documentFolder(id)!);

    const stopped = await h.cli(['run', '--once']);

    expect(stopped.code).toBe(2);
    expect(stopped.stderr).toContain('maxDeletePercent');
    expect((await h.remote()).documents).toHaveLength(8);

    const forced = await h.cli(['run', '--once', '--force-deletes']);

    expect(forced.code).toBe(0);
    expect((await h.remote()).documents.map((d) => d.id).sort()).toEqual(
      [companyDocs[3], trustDocs[2], trustDocs[3]].sort(),
    );
    await expectInSync(h);
  });

  it('service deletes over maxDeleteCount trash nothing and exit 2; --force-deletes trashes them', async () => {
    const { h, companyDocs, trustDocs } = await synced({
      maxDeleteCount: 2,
      maxDeletePercent: 100,
    });
    const gone = [companyDocs[0]!, companyDocs[1]!, trustDocs[0]!];
    const folders = gone.map((id) => h.documentFolder(id)!);
    for (const id of gone) h.sim.admin.deleteDocument(id);

    const stopped = await h.cli(['run', '--once']);

    expect(stopped.code).toBe(2);
    expect(stopped.stderr).toContain('maxDeleteCount');
    for (const folder of folders) expect(h.exists(folder)).toBe(true);

    const forced = await h.cli(['run', '--once', '--force-deletes']);

    expect(forced.code).toBe(0);
    for (const folder of folders) expect(h.exists(folder)).toBe(false);
    const trashed = [...h.trash().keys()];
    for (const folder of folders) expect(trashed.some((rel) => rel.startsWith(folder))).toBe(true);
    await expectInSync(h);
  });

  it('an empty listing for an entity that had documents deletes nothing there', async () => {
    const { h, trustDocs } = await synced({ maxDeletePercent: 100 });
    const folders = trustDocs.map((id) => h.documentFolder(id)!);
    for (const id of trustDocs) h.sim.admin.deleteDocument(id);

    const report = await h.sync({ forceDeletes: true });

    expect(report.tripped.map((t) => t.rail)).toContain('empty-listing');
    for (const folder of folders) expect(h.exists(folder)).toBe(true);
    expect(h.trash().size).toBe(0);
  });

  it('--dry-run prints the planned rows and changes nothing on either side', async () => {
    const { h, company, companyDocs } = await synced();
    h.write(`${h.entityFolder(company)}/2024-01-02 New Work/work.pdf`, 'work');
    h.remove(h.documentFolder(companyDocs[0]!)!);
    h.sim.admin.addAttachment(companyDocs[1]!, { name: 'extra.pdf', bytes: 'extra' });
    const before = await sides(h);
    h.resetCounters();

    const { code, stdout } = await h.cli(['run', '--once', '--dry-run']);

    expect(code).toBe(0);
    expect(stdout).toMatch(/row 2: /);
    expect(stdout).toMatch(/row 8: /);
    expect(stdout).toMatch(/row 41: /);
    expect(await sides(h)).toEqual(before);
    expect(h.writesToService()).toEqual({});
    expect(h.sim.admin.counters().links.requests).toBe(0);
  });
});
