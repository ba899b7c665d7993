/**
 * Permissions of what docsync creates in the folder: the firm shares it (a group, a Samba share),
 * so docsync's files must take the umask like anyone's, while the state file stays private
 * because it holds the service's tokens, and so does the trash, which holds what was removed
 * and the service's copies of what docsync deleted there.
 */
import { chmodSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { writeCliConfig } from '../helpers/cli-config.js';
import { runCli } from '../helpers/run-cli.js';
import { SMALL_FIRM } from '../helpers/sync-harness.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir('docsync-modes-');
const sims: Simulator[] = [];
afterEach(async () => {
  for (const sim of sims.splice(0)) await sim.close();
});

const modeOf = (file: string) => statSync(file).mode & 0o777;

describe('file permissions', () => {
  it('creates folders, attachments and .document.json by the umask, the state file 0600', async () => {
    const sim = await startSimulator({ rateLimitPerSecond: 0, seed: SMALL_FIRM });
    sims.push(sim);
    const dir = tempDir();
    const config = writeCliConfig(dir, sim, { settleSeconds: 0 });
    const run = await runCli(['run', '--once', '--config', config], {
      env: { DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() },
      timeoutMs: 60_000,
      umask: 0o002,
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);

    const companies = path.join(dir, 'documents', 'Companies');
    const [entity] = readdirSync(companies);
    const entityDir = path.join(companies, entity!);
    const [document] = readdirSync(entityDir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => path.join(entityDir, e.name));
    const attachments = readdirSync(document!).filter((name) => name !== '.document.json');
    expect(attachments.length).toBeGreaterThan(0);

    expect(modeOf(entityDir)).toBe(0o775);
    expect(modeOf(path.join(entityDir, '.entity.json'))).toBe(0o664);
    expect(modeOf(document!)).toBe(0o775);
    expect(modeOf(path.join(document!, '.document.json'))).toBe(0o664);
    for (const name of attachments) expect(modeOf(path.join(document!, name))).toBe(0o664);
    expect(modeOf(path.join(dir, 'state', 'docsync.db'))).toBe(0o600);
  });

  it('keeps the trash and every folder docsync makes in it 0700 under UMask=0007, and closes an open one', async () => {
    const sim = await startSimulator({ rateLimitPerSecond: 0, seed: SMALL_FIRM });
    sims.push(sim);
    const dir = tempDir();
    const config = writeCliConfig(dir, sim, { settleSeconds: 0 });
    const env = { DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() };
    const once = async () => {
      const run = await runCli(['run', '--once', '--config', config], {
        env,
        timeoutMs: 60_000,
        umask: 0o007,
      });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
    };
    await once();
    const root = path.join(dir, 'documents');
    const trash = path.join(root, '.docsync', 'trash');
    // As an older docsync left it: open to the group.
    chmodSync(trash, 0o770);

    // One attachment removed here (its service copy goes to the trash before the delete there),
    // one document deleted in the service (its folder goes to the trash here).
    const documents = (await sim.admin.dump()).documents;
    const removedHere = documents.find((d) => d.attachments.some((a) => a.kind === 'user'));
    const deletedThere = documents.find((d) => d !== removedHere);
    const removedFile = removedHere!.attachments.find((a) => a.kind === 'user')!.name;
    const folderOf = (id: string) => {
      for (const top of ['Companies', 'Trusts']) {
        for (const entity of readdirSync(path.join(root, top))) {
          const name = readdirSync(path.join(root, top, entity)).find((n) => n.endsWith(`[${id}]`));
          if (name) return path.join(root, top, entity, name);
        }
      }
      throw new Error(`no folder for ${id}`);
    };
    rmSync(path.join(folderOf(removedHere!.id), removedFile));
    sim.admin.deleteDocument(deletedThere!.id);
    await once();

    const folders = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .flatMap((e) => {
          const child = path.join(dir, e.name);
          return [child, ...folders(child)];
        });
    const copy = folders(trash).find((f) => f.endsWith(`[${removedHere!.id}]`));
    const moved = folders(trash).find((f) => f.endsWith(`[${deletedThere!.id}]`));
    expect(copy, 'the service copy is in the trash').toBeDefined();
    expect(moved, "the deleted document's folder is in the trash").toBeDefined();
    expect(modeOf(trash)).toBe(0o700);
    // Every folder docsync made in the trash: the day, `Companies`, the entity's folder.
    const items = [copy!, moved!];
    const made = folders(trash).filter((f) => !items.some((i) => f === i || f.startsWith(`${i}/`)));
    expect(made.length).toBeGreaterThanOrEqual(3);
    for (const folder of made) expect([folder, modeOf(folder)]).toEqual([folder, 0o700]);
    // What was put in it keeps its own mode, which a restore gives back to the group.
    expect(modeOf(copy!)).toBe(0o770);
  });
});
