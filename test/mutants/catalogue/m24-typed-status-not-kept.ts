import type { Mutant } from '../mutant.js';

export default {
  id: 'm24-typed-status-not-kept',
  file: 'src/engine/local-writes.ts',
  bugClass: "a person's edit written over",
  what: 'a rewrite of `.document.json` drops a status the person typed there that this sync did not settle (row 29)',
  relatedTests: [
    'test/unit/local-status-kept.test.ts',
    'test/scenarios/edits-during-sync.test.ts',
    'test/simulation/regressions.test.ts',
  ],
  find: `    const written = keepLocalStatus(meta, seen.statusEdit);`,
  replace: `    const written = meta;`,
} satisfies Mutant;
