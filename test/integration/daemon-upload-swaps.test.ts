/**
 * A file of the folder swapped under its upload, at each point of it, with `docsync run` in
 * this process against the simulator: after the scan and before the file is opened (the
 * upload held at the service's door), a folder on its path turned into a link out of the root
 * at that moment, and between two attempts of the upload (the service answers 429 until the
 * swap is made). What is sent is the file the plan saw, read from what was opened, or nothing:
 * the service never holds the bytes of the file a link points at, and once the name holds a
 * real file again, that file syncs. The agreed state records the bytes sent, not the scan's.
 */
import { createHash } from 'node:crypto';
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/index.js';
import { documentFolderOf, type FirmInStep, firmInStep } from '../helpers/daemon-firm.js';
import {
  holdCalls,
  type InProcessDaemon,
  useInProcessDaemons,
} from '../helpers/daemon-in-process.js';
import { eventually } from '../helpers/daemon-process.js';
import { useSimulators } from '../helpers/simulator.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir('docsync-swaps-');
const startDaemon = useInProcessDaemons();
const startSim = useSimulators();

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const SECRET = 'the payroll of every client, which docsync can read and no one may upload\n';
const INVOICE = '%PDF-1.4 invoice 0001, as the person saved it\n';
const UPLOAD = '/companies/{ownerId}/documents/{documentId}/attachments';

interface Swaps {
  readonly firm: FirmInStep;
  readonly sim: Simulator;
  readonly daemon: InProcessDaemon;
  readonly documentId: string;
  /** The document's folder (absolute). */
  readonly folder: string;
  /** Where the new file goes. */
  readonly invoice: string;
  /** A file outside the document folder that docsync can read. */
  readonly secret: string;
}

async function swaps(): Promise<Swaps> {
  const dir = tempDir();
  const firm = await firmInStep(startSim, dir, {
    companies: 1,
    trusts: 0,
    documentsPerEntity: 1,
    attachmentsPerDocument: 1,
    seed: 33,
  });
  const documentId = (await firm.sim.admin.dump()).documents[0]!.id;
  const { folder } = documentFolderOf(firm.root, 'Companies', documentId);
  const secret = path.join(dir, 'secret.txt');
  writeFileSync(secret, SECRET);
  const daemon = startDaemon(firm.config({ settleSeconds: 0.3 }), firm.env);
  await daemon.started;
  await eventually(() => daemon.output().includes('poll round finished'));
  firm.sim.admin.resetCounters();
  return {
    firm,
    sim: firm.sim,
    daemon,
    documentId,
    folder,
    invoice: path.join(folder, 'invoice.pdf'),
    secret,
  };
}

/** The sha256 of every attachment the service holds, of every document. */
async function inService(sim: Simulator): Promise<string[]> {
  return (await sim.admin.dump()).documents.flatMap((d) => d.attachments.map((a) => a.sha256));
}

/** The `invoice.pdf` attachments of the document in the service. */
async function invoices(t: Swaps) {
  const doc = (await t.sim.admin.dump()).documents.find((d) => d.id === t.documentId)!;
  return doc.attachments.filter((a) => a.name === 'invoice.pdf');
}

/** Uploads the service answered with `status`. */
const uploads = (sim: Simulator, status: number) =>
  sim.admin.counters().api.byRoute[`POST ${UPLOAD} ${status}`] ?? 0;

/** The sha256 of every regular file under `dir`, `.docsync/` (the trash) included; no link followed. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const entry = path.join(dir, name);
    const stats = lstatSync(entry);
    if (stats.isDirectory()) return filesUnder(entry);
    return stats.isFile() ? [sha256(readFileSync(entry))] : [];
  });
}

/** The agreed state's record of `invoice.pdf`. */
function agreedInvoice(t: Swaps) {
  return t.daemon.app.state.base
    .get(t.documentId)
    ?.attachments.find((a) => a.file === 'invoice.pdf');
}

/** A person puts a real file under the name again: it goes up, once, as it is. */
async function syncsOnceReal(t: Swaps, content: string): Promise<void> {
  rmSync(t.invoice, { force: true });
  writeFileSync(t.invoice, content);
  await eventually(async () => agreedInvoice(t)?.sha256 === sha256(content), 30_000);
  expect((await invoices(t)).map((a) => a.sha256)).toEqual([sha256(content)]);
}

/** The secret reached neither the service nor any file docsync keeps (its trash above all). */
async function expectSecretKept(t: Swaps): Promise<void> {
  expect(await inService(t.sim)).not.toContain(sha256(SECRET));
  expect(filesUnder(t.firm.root)).not.toContain(sha256(SECRET));
}

function swapForLink(file: string, target: string): void {
  rmSync(file);
  symlinkSync(target, file);
}

describe('a file swapped under its upload', () => {
  it('for a link to a secret after the scan, before it is opened: nothing of the secret is sent', async () => {
    const t = await swaps();
    const door = holdCalls(
      t.daemon.app,
      'uploadAttachment',
      (...args) => args[3] === 'invoice.pdf',
    );
    writeFileSync(t.invoice, INVOICE);
    await eventually(() => door.held() > 0, 30_000);

    swapForLink(t.invoice, t.secret);
    door.release();
    await eventually(() => door.finished() > 0, 30_000);

    await expectSecretKept(t);
    expect(uploads(t.sim, 201)).toBe(0);
    expect(t.daemon.output()).toMatch(/invoice\.pdf is a symbolic link: docsync uploads only/);
    await syncsOnceReal(t, INVOICE);
    await expectSecretKept(t);
  }, 90_000);

  it('by a folder on its path turned into a link out of the root: nothing of the secret is sent', async () => {
    const t = await swaps();
    const elsewhere = path.join(path.dirname(t.secret), 'elsewhere');
    mkdirSync(elsewhere);
    writeFileSync(path.join(elsewhere, 'invoice.pdf'), SECRET);
    const door = holdCalls(
      t.daemon.app,
      'uploadAttachment',
      (...args) => args[3] === 'invoice.pdf',
    );
    writeFileSync(t.invoice, INVOICE);
    await eventually(() => door.held() > 0, 30_000);

    // The document folder moved aside and its name pointed at a folder outside the root.
    const aside = `${t.folder} (aside)`;
    renameSync(t.folder, aside);
    symlinkSync(elsewhere, t.folder);
    door.release();
    await eventually(() => door.finished() > 0, 30_000);

    await expectSecretKept(t);
    expect(uploads(t.sim, 201)).toBe(0);
    expect(t.daemon.output()).toMatch(/invoice\.pdf is reached through a link out of the folder/);
    rmSync(t.folder);
    renameSync(aside, t.folder);
    await eventually(async () => agreedInvoice(t)?.sha256 === sha256(INVOICE), 30_000);
    expect((await invoices(t)).map((a) => a.sha256)).toEqual([sha256(INVOICE)]);
    await expectSecretKept(t);
  }, 90_000);

  it('for a link to a secret between two attempts (a 429): the retry sends nothing of it', async () => {
    const t = await swaps();
    // Every upload is answered 429 until the swap is made: the retry comes after it.
    t.sim.admin.setFaults({ routes: { [UPLOAD]: 429 } });
    writeFileSync(t.invoice, INVOICE);
    await eventually(() => uploads(t.sim, 429) > 0, 30_000);

    swapForLink(t.invoice, t.secret);
    t.sim.admin.setFaults({});
    await eventually(
      () => uploads(t.sim, 201) > 0 || t.daemon.output().includes('invoice.pdf is a symbolic link'),
      30_000,
    );

    await expectSecretKept(t);
    expect(uploads(t.sim, 201)).toBe(0);
    expect(t.daemon.log()).toContainEqual(
      expect.objectContaining({
        level: 40,
        msg: expect.stringMatching(/invoice\.pdf is a symbolic link: .*nothing was sent/),
      }),
    );
    await syncsOnceReal(t, INVOICE);
    await expectSecretKept(t);
  }, 90_000);
});

describe('the agreed state of an upload', () => {
  it('is the hash of the bytes sent, when the file was rewritten after the scan with its size and mtime kept', async () => {
    const t = await swaps();
    const door = holdCalls(
      t.daemon.app,
      'uploadAttachment',
      (...args) => args[3] === 'invoice.pdf',
    );
    // Whole seconds, so that putting the mtime back (as `cp -p` or a restore does) is exact.
    const mtime = Math.floor(Date.now() / 1000) - 60;
    writeFileSync(t.invoice, INVOICE);
    utimesSync(t.invoice, mtime, mtime);
    await eventually(() => door.held() > 0, 30_000);

    const rewritten = INVOICE.replace('0001', '0002');
    writeFileSync(t.invoice, rewritten);
    utimesSync(t.invoice, mtime, mtime);
    door.release();
    await eventually(() => door.finished() > 0, 30_000);

    const [sent] = await invoices(t);
    expect(sent?.sha256).toBe(sha256(rewritten));
    expect(agreedInvoice(t)?.sha256, 'the agreed hash is that of the bytes sent').toBe(
      sha256(rewritten),
    );
    expect(uploads(t.sim, 201)).toBe(1);
  }, 90_000);

  it('never claims the scan for other bytes: a file changed before it is sent goes up once, as changed', async () => {
    const t = await swaps();
    const door = holdCalls(
      t.daemon.app,
      'uploadAttachment',
      (...args) => args[3] === 'invoice.pdf',
    );
    writeFileSync(t.invoice, INVOICE);
    await eventually(() => door.held() > 0, 30_000);

    const changed = `${INVOICE}with a second page\n`;
    writeFileSync(t.invoice, changed);
    door.release();
    await eventually(async () => agreedInvoice(t)?.sha256 === sha256(changed), 30_000);

    expect((await invoices(t)).map((a) => a.sha256)).toEqual([sha256(changed)]);
    // Sent once: not the changed bytes under the scan's hash, then again as a change.
    expect(uploads(t.sim, 201)).toBe(1);
    expect(readFileSync(t.invoice, 'utf8')).toBe(changed);
  }, 90_000);
});
