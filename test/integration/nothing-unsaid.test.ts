/**
 * Nothing unsaid (issue 27, case 7). A company folder that matches nothing is reported by the
 * daemon within one scan interval (status, page, log), and by `run --once --json` as `status`
 * lists it. Subfolders inside a document folder and loose files in an entity folder, under
 * `Companies/` or at the root are listed under "Not synced" with the reason. A user's own
 * `… (local edit).pdf` is synced like any file. A renamed document folder and a renamed entity
 * folder are said ("renamed here; the service keeps '…'") and keep syncing by their id.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeCliConfig } from '../helpers/cli-config.js';
import { eventually, useDaemonProcesses } from '../helpers/daemon-process.js';
import { runCli } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulator.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const startDaemon = useDaemonProcesses();
const startSim = useSimulators();

interface NotSynced {
  readonly path: string;
  readonly reason: string;
}

async function syncedFirm(overrides: Record<string, unknown> = {}) {
  const sim = await startSim({
    seed: { companies: 1, trusts: 0, documentsPerEntity: 2, attachmentsPerDocument: 1 },
  });
  const dir = tempDir();
  const env = { ...process.env, DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() };
  const config = writeCliConfig(dir, sim, { settleSeconds: 0, ...overrides });
  const first = await runCli(['run', '--once', '--config', config], { env });
  expect(first.code, first.stderr).toBe(0);
  const root = path.join(dir, 'documents');
  const entity = `Companies/${readdirSync(path.join(root, 'Companies'))[0]!}`;
  const documents = readdirSync(path.join(root, entity))
    .filter((f) => f.includes('['))
    .sort()
    .map((f) => `${entity}/${f}`);
  return { sim, dir, env, config, root, entity, documents };
}

const status = async (config: string, env: NodeJS.ProcessEnv) =>
  JSON.parse((await runCli(['status', '--json', '--config', config], { env })).stdout);

const reasonOf = (list: readonly NotSynced[], where: string) =>
  list.find((n) => n.path === where)?.reason;

describe('nothing unsaid (issue 27, case 7)', () => {
  it('run --once --json and status list the same unmatched folders and entries not synced, each with its reason', async () => {
    const { sim, env, config, root, entity, documents } = await syncedFirm();
    const [doc, other] = documents as [string, string];
    const at = (rel: string) => path.join(root, rel);
    mkdirSync(at('Companies/Nobody Pty Ltd (999 999 999)/2024-01-01 Minutes'), { recursive: true });
    writeFileSync(at('Companies/Nobody Pty Ltd (999 999 999)/2024-01-01 Minutes/m.pdf'), 'm');
    writeFileSync(at(`${entity}/notes.txt`), 'a loose file in the entity folder');
    writeFileSync(at('Companies/readme.txt'), 'a loose file beside the entity folders');
    writeFileSync(at('root.txt'), 'a loose file at the top');
    mkdirSync(at('Scans'));
    mkdirSync(at(`${doc}/drafts`));
    writeFileSync(at(`${doc}/drafts/draft.pdf`), 'a draft');
    // The user's own file with the marker: docsync made no copy by this name.
    writeFileSync(at(`${doc}/Budget (local edit).pdf`), 'my budget');

    const once = await runCli(['run', '--once', '--json', '--config', config], { env });
    expect(once.code, once.stderr).toBe(0);
    const summary = JSON.parse(once.stdout);
    const report = await status(config, env);
    expect(summary.unmatchedFolders).toEqual(report.unmatchedFolders);
    expect(summary.unmatchedFolders.map((u: { folder: string }) => u.folder)).toEqual([
      'Companies/Nobody Pty Ltd (999 999 999)',
    ]);
    expect(summary.notSynced).toEqual(
      report.notSynced.map(({ path, reason }: NotSynced) => ({ path, reason })),
    );
    const notSynced: NotSynced[] = summary.notSynced;
    expect(reasonOf(notSynced, `${entity}/notes.txt`)).toMatch(/loose file in a company's/);
    expect(reasonOf(notSynced, 'Companies/readme.txt')).toMatch(/beside the entity folders/);
    expect(reasonOf(notSynced, 'root.txt')).toMatch(/at the top of the store/);
    expect(reasonOf(notSynced, 'Scans')).toMatch(/outside Companies\/ and Trusts\//);
    expect(reasonOf(notSynced, `${doc}/drafts`)).toMatch(/a folder inside a document folder/);
    expect(once.stderr).toMatch(/ --config \S+ status` lists them with the reason/);

    const dump = await sim.admin.dump();
    const names = dump.documents.flatMap((d) => d.attachments.map((a) => a.name));
    expect(names).toContain('Budget (local edit).pdf');
    expect(names).not.toContain('draft.pdf');
    expect(names).not.toContain('notes.txt');

    // A document folder and the entity folder renamed: said, and still synced by their ids.
    const renamedDoc = `${entity}/For the auditors`;
    renameSync(at(other), at(renamedDoc));
    const renamedEntity = 'Companies/Our oldest client';
    renameSync(at(entity), at(renamedEntity));
    const again = await runCli(['run', '--once', '--json', '--config', config], { env });
    expect(again.code, again.stderr).toBe(0);
    const movedDoc = renamedDoc.replace(entity, renamedEntity);
    const meta = JSON.parse(readFileSync(at(`${movedDoc}/.document.json`), 'utf8'));
    const company = dump.companies.find((c) => c.id === meta.owner.id)!;
    const listed: NotSynced[] = JSON.parse(again.stdout).notSynced;
    expect(reasonOf(listed, movedDoc)).toBe(
      `renamed here; the service keeps '${meta.name}': a folder's name is not sent to the service, and docsync keeps syncing it by its id`,
    );
    expect(reasonOf(listed, renamedEntity)).toMatch(
      new RegExp(`^renamed here; the service keeps '${escapeRegExp(company.name)}'`),
    );
    writeFileSync(at(`${movedDoc}/signed.pdf`), 'signed');
    const third = await runCli(['run', '--once', '--json', '--config', config], { env });
    expect(third.code, third.stderr).toBe(0);
    const after = await sim.admin.dump();
    const inService = after.documents.find((d) => d.id === meta.id)!;
    expect(inService.name).toBe(meta.name);
    expect(inService.attachments.map((a) => a.name)).toContain('signed.pdf');
    // Still said while the names differ.
    expect(reasonOf(JSON.parse(third.stdout).notSynced, movedDoc)).toMatch(/^renamed here/);
  }, 60_000);

  it('the daemon reports a new folder that matches nothing within one scan interval', async () => {
    const { env, config, root } = await syncedFirm({
      watcher: { scanIntervalSeconds: 2 },
      schedule: { cron: '0 0 1 1 *', fullReconcileCron: '0 0 1 1 *' },
      status: { enabled: true, listen: '127.0.0.1:0' },
      log: { level: 'info' },
    });
    const daemon = startDaemon(config, env);
    await daemon.started;
    const statusUrl = await (async () => {
      let url: string | undefined;
      await eventually(() => {
        url = /"url":"([^"]+)","msg":"status page listening"/.exec(daemon.output())?.[1];
        return url !== undefined;
      });
      return url!;
    })();
    // The start's catch-up first, so what follows is the scans' doing.
    await eventually(async () => (await status(config, env)).lastCycle?.finishedAt != null);
    mkdirSync(path.join(root, 'Companies', 'Newco Pty Ltd (111 222 333)'));
    writeFileSync(path.join(root, 'stray.txt'), 'left at the top');
    // No cycle runs (the cron never fires), so only the scan pass can find them: the test judges
    // that they are said, not how fast a busy machine gets to the next pass.
    await eventually(async () => {
      const report = await status(config, env);
      return (
        report.unmatchedFolders.some(
          (u: { folder: string }) => u.folder === 'Companies/Newco Pty Ltd (111 222 333)',
        ) && report.notSynced.some((n: NotSynced) => n.path === 'stray.txt')
      );
    }, 30_000);
    // The log line is written beside the report, and reaches the pipe a moment later.
    await eventually(
      () =>
        daemon.output().includes('unmatched folder: Companies/Newco Pty Ltd (111 222 333)') &&
        daemon.output().includes('not synced: stray.txt'),
      30_000,
    );
    const page = await (await fetch(statusUrl)).text();
    expect(page).toContain('Companies/Newco Pty Ltd (111 222 333)');
    expect(page).toContain('stray.txt');
    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
  }, 60_000);
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
