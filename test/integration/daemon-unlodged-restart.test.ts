/**
 * The firm-wide hint after a restart, and its politeness, at the level a user reaches: the daemon
 * as `docsync run` assembles it, in this process, on a virtual clock (test/helpers/test-clock.ts)
 * that only the test moves on. A firm of three companies in step with its store; while docsync
 * was down, 60 forms were made in its companies. The restarted daemon's first read of the
 * unlodged list shows all 60: the log says so in one line, not one per document, and every form
 * reaches the folder. Its list is one page, which the sweep's share alone would read every
 * 100 ms here: it is read again only once the clock has moved 30 s (`unlodgedSweepSeconds`),
 * however long the pulls took in real time.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeCliConfig } from '../helpers/cli-config.js';
import { NEVER } from '../helpers/daemon-firm.js';
import { useInProcessDaemons } from '../helpers/daemon-in-process.js';
import { eventually } from '../helpers/daemon-process.js';
import { runCli } from '../helpers/run-cli.js';
import { served } from '../helpers/sim-counters.js';
import { useSimulators } from '../helpers/simulator.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { TestClock } from '../helpers/test-clock.js';

const tempDir = useTempDir();
const startSim = useSimulators();
const startDaemon = useInProcessDaemons();

const FIRM = { companies: 3, trusts: 2, documentsPerEntity: 2, attachmentsPerDocument: 1 };
const MADE_WHILE_DOWN = 60;
const SWEEP_EVERY_MS = 30_000;
const UNLODGED = /\/documents\/unlodged 200$/;
/** Room for a busy machine: what is proven is the count, not the time. */
const LANDS_WITHIN_MS = 60_000;

/** The ids of the document folders under the companies' folders. */
function companyFolderIds(root: string): Set<string> {
  const companies = path.join(root, 'Companies');
  const ids = new Set<string>();
  for (const entity of readdirSync(companies)) {
    for (const name of readdirSync(path.join(companies, entity))) {
      const id = /\[([^\]]+)\]$/.exec(name)?.[1];
      if (id) ids.add(id);
    }
  }
  return ids;
}

describe('docsync run after a restart: the firm-wide hint', () => {
  it('says what the list showed in one line, and reads the list again only 30 s later', async () => {
    const sim = await startSim({ rateLimitPerSecond: 0, seed: FIRM });
    const dir = tempDir();
    const root = path.join(dir, 'documents');
    const env = { DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() };
    // Unthrottled (200 requests a second): the sweep's share alone would read every 100 ms.
    const config = writeCliConfig(dir, sim, { log: { level: 'info' }, schedule: NEVER });
    const once = await runCli(['run', '--once', '--config', config], { env, timeoutMs: 60_000 });
    expect(once.code, once.stderr).toBe(0);

    // While docsync was down.
    const companies = (await sim.admin.dump()).companies;
    const made: string[] = [];
    for (let i = 0; i < MADE_WHILE_DOWN; i++) {
      const doc = sim.admin.createDocument({
        owner: { kind: 'company', id: companies[i % companies.length]!.id },
        name: `Form 484 change ${i}`,
        asicDocNumber: `2E${4_000_000 + i}`,
        statusTypeId: 2,
      });
      made.push(String(doc.id));
    }
    sim.admin.resetCounters();

    // No real time passes on it: the 30 s are the test's to move on, to the millisecond.
    const clock = new TestClock({ standsStill: true });
    const daemon = startDaemon(config, env, { clock, sweepClock: clock });
    await daemon.started;
    await eventually(() => {
      const ids = companyFolderIds(root);
      return made.every((id) => ids.has(id));
    }, LANDS_WITHIN_MS);

    const said = daemon.log().filter((e) => e.msg.startsWith("the firm's unlodged list shows"));
    expect(said.map((e) => e.msg)).toEqual([
      expect.stringMatching(
        /^the firm's unlodged list shows 60 changes \(60 new documents\): listing 3 companies now: company \S+, company \S+, company \S+$/,
      ),
    ]);
    expect(said[0]).toMatchObject({ level: 30, hints: 60, newDocuments: 60 });

    // Read once, however long the pulls took: the next sweep waits for the clock.
    expect(served(sim, UNLODGED)).toBe(1);
    clock.advance(SWEEP_EVERY_MS - 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(served(sim, UNLODGED)).toBe(1);
    clock.advance(1);
    await eventually(() => served(sim, UNLODGED) === 2);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(served(sim, UNLODGED)).toBe(2);
    // The list agrees with the folder now: nothing more to say.
    expect(
      daemon.log().filter((e) => e.msg.startsWith("the firm's unlodged list shows")),
    ).toHaveLength(1);
  });
});
