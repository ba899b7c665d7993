import type { Mutant } from '../mutant.js';

export default {
  id: 'm17-announced-deletion-trusted',
  file: 'src/engine/verify-deletions.ts',
  bugClass: 'a claim of the service trusted unchecked',
  what: 'a document a `deleteDocument` webhook named is taken as deleted without asking the service',
  relatedTests: [
    'test/scenarios/absence-is-not-deletion.test.ts',
    'test/scenarios/remote-actions.test.ts',
    'test/integration/daemon-webhook-durable.test.ts',
  ],
  find: `  const candidates = new Set([...(claims.unlisted ?? []), ...claims.announced]);
  const deleted = new Set<string>();`,
  replace: `  const candidates = new Set(claims.unlisted ?? []);
  const deleted = new Set<string>(claims.announced);`,
} satisfies Mutant;
