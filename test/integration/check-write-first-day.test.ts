/**
 * `docsync check --write` is safe at any moment: before the first run (no folder yet, or an
 * empty one) it proves every route that writes without making anything in the firm's folder and
 * leaves nothing in the service; a proof killed in the middle leaves its test document recorded,
 * and the next `check --write`, or separately the next `run --once`, removes it and says so; no
 * sync ever pulls a test document into the firm's folder. Each case as an operator meets it:
 * the command line against the simulator, the killed proof a real child process.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CheckLine } from '../../src/domain/check-lines.js';
import { proofDocumentName } from '../../src/domain/write-proofs.js';
import { type SimProfile, type Simulator, startSimulator } from '../../src/simulator/index.js';
import { StateStore } from '../../src/state/state-store.js';
import { writeCliConfig } from '../helpers/cli-config.js';
import { NEVER } from '../helpers/daemon-firm.js';
import { useInProcessDaemons } from '../helpers/daemon-in-process.js';
import { eventually } from '../helpers/daemon-process.js';
import { CLI, runCli } from '../helpers/run-cli.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const startDaemon = useInProcessDaemons();
const sims: Simulator[] = [];
afterEach(async () => {
  await Promise.all(sims.splice(0).map((sim) => sim.close()));
});

/** A firm on the simulator, configured and logged in (`docsync check` keeps the login), never run. */
async function newFirm(profile: SimProfile = 'api', overrides: Record<string, unknown> = {}) {
  const sim = await startSimulator({ seed: 'demo', profile, rateLimitPerSecond: 0 });
  sims.push(sim);
  const dir = tempDir();
  const config = writeCliConfig(dir, sim, overrides);
  const env = { DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() };
  const cli = (...args: string[]) =>
    runCli([...args, '--config', config], { env, timeoutMs: 60_000 });
  expect((await cli('check')).code).toBe(0);
  const dump = await sim.admin.dump();
  const company = dump.companies[0]!;
  const checkWrite = async () => {
    const result = await cli('check', '--json', '--write', String(company.id), '--yes');
    const lines = result.stdout ? (JSON.parse(result.stdout) as { lines: CheckLine[] }).lines : [];
    return { ...result, lines };
  };
  return {
    sim,
    dir,
    config,
    env,
    cli,
    checkWrite,
    company,
    root: path.join(dir, 'documents'),
    statePath: path.join(dir, 'state', 'docsync.db'),
    /** The service's documents, by id. */
    documentIds: async () => new Set((await sim.admin.dump()).documents.map((d) => String(d.id))),
    /** The service's documents a proof made (named as only a proof names one). */
    testDocuments: async () =>
      (await sim.admin.dump()).documents.filter((d) => d.name.startsWith('docsync check ')),
  };
}

type Firm = Awaited<ReturnType<typeof newFirm>>;

/** Every path under `dir`, relative to it; none when it does not exist. */
function pathsUnder(dir: string, rel = ''): string[] {
  if (!existsSync(path.join(dir, rel))) return [];
  return readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((e) => {
    const here = path.join(rel, e.name);
    return e.isDirectory() ? [here, ...pathsUnder(dir, here)] : [here];
  });
}

/** What the state records of proofs: empty once every test document is gone. */
function recordedProofs(f: Firm) {
  const state = StateStore.open(f.statePath, { existing: true, upgrade: false });
  try {
    return state.writeProofs.list();
  } finally {
    state.close();
  }
}

/**
 * `check --write` in a child process, SIGKILLed once the service holds the answer of `held`
 * (the request carried out, its answer not yet sent): a crash at a moment fixed by the proof's
 * progress, not by how fast a busy machine runs it.
 */
async function killedProof(f: Firm, held: string): Promise<void> {
  f.sim.admin.holdAnswers({ method: 'POST', template: held });
  const child = spawn(
    process.execPath,
    [CLI, 'check', '--write', String(f.company.id), '--yes', '--config', f.config],
    { env: { ...process.env, ...f.env }, stdio: 'ignore' },
  );
  const ended = new Promise<NodeJS.Signals | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (_code, signal) => resolve(signal));
  });
  const poll = setInterval(() => {
    if (f.sim.admin.heldAnswers() > 0) child.kill('SIGKILL');
  }, 1);
  try {
    expect(await ended).toBe('SIGKILL');
  } finally {
    clearInterval(poll);
    f.sim.admin.releaseAnswers();
  }
}

describe('docsync check --write before the first run', () => {
  it.each([
    ['no folder yet', false],
    ['an empty folder', true],
  ])(
    'with %s: passes, makes nothing in the folder, leaves nothing in the service, and the first run pulls nothing of it',
    async (_case, emptyFolder) => {
      // The public pages' reading: a company document's details carry no change time, so the
      // create is followed by a read of the list, whose 200 is not the create's answer.
      const f = await newFirm('public-docs');
      if (emptyFolder) mkdirSync(f.root);
      const before = await f.documentIds();

      const { code, lines, stderr } = await f.checkWrite();

      expect(stderr).not.toMatch(/^\s+at /m);
      expect(code).toBe(0);
      expect(lines.filter((l) => l.result !== 'ok')).toEqual([]);
      const create = lines.find((l) => l.data?.route === 'createDocument')!;
      expect(create.data?.status).toBe(201);
      expect(create.message).toMatch(/^answered 201: test document \d+ "docsync check .*" created/);
      // Its copies are beside the state database, where the lines say; the folder is as it was.
      const copies = path.join(f.dir, 'state', 'check-write', '.docsync', 'trash');
      expect(lines.at(-2)!.message).toContain(`(its copy is in ${copies}/)`);
      expect(pathsUnder(copies).some((p) => p.endsWith('docsync-check.bin'))).toBe(true);
      expect(pathsUnder(f.root)).toEqual([]);
      expect(existsSync(f.root)).toBe(emptyFolder);
      expect(await f.documentIds()).toEqual(before);
      expect(recordedProofs(f)).toEqual([]);

      // The first run sets the folder up as ever, and finds no test document to pull.
      const run = await f.cli('run', '--once');
      expect(run.code).toBe(0);
      expect(existsSync(path.join(f.root, '.docsync-root'))).toBe(true);
      expect(pathsUnder(f.root).filter((p) => p.includes('docsync check'))).toEqual([]);
    },
  );

  it("after the first run, keeps its copies in the folder's trash and shows the create's own 201", async () => {
    const f = await newFirm('public-docs');
    expect((await f.cli('run', '--once')).code).toBe(0);

    const { code, lines } = await f.checkWrite();

    expect(code).toBe(0);
    expect(lines.find((l) => l.data?.route === 'createDocument')?.data?.status).toBe(201);
    expect(lines.at(-2)!.message).toContain('(its copy is in .docsync/trash/)');
    expect(
      pathsUnder(path.join(f.root, '.docsync', 'trash')).some((p) =>
        p.endsWith('docsync-check.bin'),
      ),
    ).toBe(true);
    expect(await f.testDocuments()).toEqual([]);
  });
});

describe('a proof killed in the middle', () => {
  it('before its create answered: the next check --write finds the test document by its name, removes it and says so', async () => {
    const f = await newFirm();
    await killedProof(f, '/companies/{ownerId}/documents');
    const [left] = await f.testDocuments();
    expect(left).toBeDefined();
    expect(recordedProofs(f)).toMatchObject([{ name: left!.name, documentId: null }]);

    const { code, lines } = await f.checkWrite();

    expect(code).toBe(0);
    expect(lines).toContainEqual(
      expect.objectContaining({
        topic: 'earlier test document',
        result: 'ok',
        message: expect.stringMatching(
          new RegExp(
            `^removed test document ${left!.id} "${left!.name}" from .*\\(company ${f.company.id}\\): an interrupted check --write had left it there$`,
          ),
        ),
      }),
    );
    // That one and this proof's own: none left in the service, none recorded.
    expect(await f.testDocuments()).toEqual([]);
    expect(recordedProofs(f)).toEqual([]);
    expect(pathsUnder(f.root)).toEqual([]);
  });

  it('after its create answered: the next run --once removes the test document and its file, says so, and never pulls it', async () => {
    const f = await newFirm();
    await killedProof(f, '/companies/{ownerId}/documents/{documentId}/attachments');
    const [left] = await f.testDocuments();
    expect(left?.attachments.length).toBe(1);
    expect(recordedProofs(f)).toMatchObject([{ documentId: String(left!.id) }]);

    const run = await f.cli('run', '--once');

    expect(run.code).toBe(0);
    const said = run.stdout
      .split('\n')
      .filter((l) => l.includes('interrupted check --write'))
      .map((l) => JSON.parse(l) as { msg: string });
    expect(said.map((l) => l.msg)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^removed test document ${left!.id} "${left!.name}" from .*\\(company ${f.company.id}\\)`,
        ),
      ),
    ]);
    expect(await f.testDocuments()).toEqual([]);
    expect(recordedProofs(f)).toEqual([]);
    expect(pathsUnder(f.root).filter((p) => p.includes('docsync check'))).toEqual([]);
  });
});

describe('a test document someone has used since', () => {
  it('is left in the service with a line that says why: a file the check did not make is not deleted without a copy', async () => {
    const f = await newFirm();
    await killedProof(f, '/companies/{ownerId}/documents/{documentId}/attachments');
    const [left] = await f.testDocuments();
    f.sim.admin.addAttachment(String(left!.id), { name: 'signed minutes.pdf', bytes: 'theirs' });

    const run = await f.cli('run', '--once');

    expect(run.code).toBe(0);
    const said = run.stdout
      .split('\n')
      .filter((l) => l.includes('interrupted check --write'))
      .map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(said).toEqual([
      expect.stringMatching(
        new RegExp(`^test document ${left!.id} .*holds a file the check did not make`),
      ),
    ]);
    const [kept] = await f.testDocuments();
    expect(kept?.attachments.map((a) => a.name).sort()).toEqual([
      'docsync-check.bin',
      'signed minutes.pdf',
    ]);
  });
});

describe('a proof killed in the middle, then the daemon', () => {
  it('removes the test document in its catch-up at the start, says so in its log, and never pulls it', async () => {
    const f = await newFirm('api', { schedule: NEVER });
    await killedProof(f, '/companies/{ownerId}/documents/{documentId}/attachments');
    const [left] = await f.testDocuments();
    expect(left).toBeDefined();

    const daemon = startDaemon(f.config, f.env);
    await daemon.started;
    await eventually(() => daemon.app.state.settings.initialSyncDone());

    expect(
      daemon
        .log()
        .filter((l) => l.msg.includes('interrupted check --write'))
        .map((l) => [l.level, l.msg]),
    ).toEqual([
      [
        40,
        expect.stringMatching(
          new RegExp(`^removed test document ${left!.id} "${left!.name}" from `),
        ),
      ],
    ]);
    expect(await f.testDocuments()).toEqual([]);
    expect(daemon.app.state.writeProofs.list()).toEqual([]);
    expect(pathsUnder(f.root).filter((p) => p.includes('docsync check'))).toEqual([]);
  });
});

describe('a sync never pulls a test document', () => {
  it('of a proof still running (its process alive), nor one known only by its name; it removes neither', async () => {
    const f = await newFirm();
    const owner = { kind: 'company' as const, id: String(f.company.id) };
    // A proof running beside the run: recorded by this (live) process, its document made.
    const running = f.sim.admin.createDocument({ owner, name: proofDocumentName(new Date()) });
    const state = StateStore.open(f.statePath, { existing: true, upgrade: false });
    state.writeProofs.begin({
      name: running.name,
      owner,
      entityName: f.company.name,
      pid: process.pid,
      startedAt: Date.now(),
    });
    state.writeProofs.created(running.name, String(running.id));
    state.close();
    // One no record names (a state lost since, another docsync's): known by its name alone.
    const unrecorded = f.sim.admin.createDocument({
      owner,
      name: proofDocumentName(new Date(Date.now() - 86_400_000)),
    });

    const run = await f.cli('run', '--once');

    expect(run.code).toBe(0);
    expect(pathsUnder(f.root).filter((p) => p.includes('docsync check'))).toEqual([]);
    expect((await f.testDocuments()).map((d) => String(d.id)).sort()).toEqual(
      [String(running.id), String(unrecorded.id)].sort(),
    );
    expect(recordedProofs(f)).toHaveLength(1);
  });
});
