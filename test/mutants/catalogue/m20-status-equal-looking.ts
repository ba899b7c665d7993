import type { Mutant } from '../mutant.js';

export default {
  id: 'm20-status-equal-looking',
  file: 'src/domain/local-changes.ts',
  bugClass: 'a status push skipped when equal-looking',
  what: 'a status typed whose name the agreed one ends with ("RECEIVED" for "DOCUMENT RECEIVED") is read as the agreed status and not pushed',
  relatedTests: [
    'test/unit/detect-changes.test.ts',
    'test/unit/plan-sync-table.test.ts',
    'test/scenarios/local-actions.test.ts',
  ],
  find: `  if (current && named.toUpperCase() === current.name.trim().toUpperCase()) {`,
  replace: `  if (current && named !== '' && current.name.trim().toUpperCase().endsWith(named.toUpperCase())) {`,
} satisfies Mutant;
