/**
 * The catalogue of `npm run mutants` stays usable: every mutant's code is still in today's src,
 * exactly once, so a refactor that moves it fails here, with the mutant's name, rather than
 * quietly in the next mutation run ("stale"). Mend the mutant's `find` (and `replace`) to the
 * code as it is now; do not drop the mutant.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCatalogue, occurrences } from './apply-mutant.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');
const catalogue = loadCatalogue(ROOT);

describe('the mutants catalogue', () => {
  it('has at least 22 mutants, with unique ids named as their files', () => {
    expect(catalogue.length).toBeGreaterThanOrEqual(22);
    const ids = catalogue.map((m) => m.id);
    expect(new Set(ids).size, `ids: ${ids.join(', ')}`).toBe(ids.length);
    for (const m of catalogue) expect(m.source, m.id).toBe(`${m.id}.ts`);
  });

  it.each(catalogue.map((m) => [m.id, m] as const))(
    '%s still applies to src: its code occurs exactly once',
    (id, mutant) => {
      expect(mutant.file, `${id}: file`).toMatch(/^src\/.+\.ts$/);
      const file = path.join(ROOT, mutant.file);
      expect(existsSync(file), `${id}: ${mutant.file} is gone`).toBe(true);
      const times = occurrences(readFileSync(file, 'utf8'), mutant.find);
      expect(times, `${id}: its find occurs ${times} times in ${mutant.file}`).toBe(1);
      expect(mutant.replace, `${id}: replace changes nothing`).not.toBe(mutant.find);
      expect(mutant.bugClass && mutant.what, `${id}: bugClass and what`).toBeTruthy();
      expect(mutant.relatedTests.length, `${id}: related tests`).toBeGreaterThan(0);
      for (const test of mutant.relatedTests)
        expect(existsSync(path.join(ROOT, test)), `${id}: ${test} is gone`).toBe(true);
    },
  );
});
