/**
 * A stop while a first sync makes the firm's entity folders (thousands, each written durably):
 * the read of the catalogue ends between two folders instead of making the rest, forgets
 * nothing, and the next sync ties the folders made so far and makes the others, once each.
 */
import { mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunStoppedError } from '../../src/domain/errors.js';
import { refreshEntities } from '../../src/engine/refresh-entities.js';
import { runCycle } from '../../src/engine/run-cycle.js';
import { expectInSync } from '../helpers/sync-assertions.js';
import { useSyncHarness } from '../helpers/sync-harness.js';

const start = useSyncHarness();

describe('a stop during the read of the catalogue', () => {
  it('makes no folder after the stop, and the next sync makes the rest once', async () => {
    const h = await start({
      seed: { companies: 8, trusts: 0, documentsPerEntity: 1, attachmentsPerDocument: 1, seed: 3 },
    });
    mkdirSync(h.root);
    const stop = new AbortController();
    let made = 0;
    const deps = {
      ...h.deps,
      failpoint: async (step: string, site: { what?: string }) => {
        if (step === 'before-local-write' && site.what === 'entity folder' && ++made === 3)
          stop.abort();
      },
    };
    const companies = () => readdirSync(path.join(h.root, 'Companies')).sort();

    await expect(refreshEntities(deps, stop.signal)).rejects.toBeInstanceOf(RunStoppedError);
    expect(companies()).toHaveLength(3);
    expect(h.state.entities.count()).toBe(3);

    // The first sync stopped the same way is recorded as interrupted, not failed.
    made = 0;
    const again = new AbortController();
    const report = await runCycle(
      {
        ...deps,
        failpoint: async (step, site) => {
          if (step === 'before-local-write' && site.what === 'entity folder' && ++made === 5)
            again.abort();
        },
      },
      { trigger: 'once', fullReconcile: true, signal: again.signal },
    );
    expect(report.result).toBe('interrupted');
    expect(companies()).toHaveLength(5);

    await h.sync();
    expect(companies()).toHaveLength(8);
    await expectInSync(h);
  });
});
