import type { Mutant } from '../mutant.js';

export default {
  id: 'm07-cursor-at-planning',
  file: 'src/engine/execute-entity.ts',
  bugClass: 'a cursor committed at planning time',
  what: 'the cursor is committed over every listed document before any of their actions run',
  relatedTests: [
    'test/scenarios/faults.test.ts',
    'test/scenarios/crash.test.ts',
    'test/scenarios/idempotence.test.ts',
  ],
  find: `    const filesOf = (folder: string) => this.#writes.filesOf(folder);
    await mapLimit(`,
  replace: `    const filesOf = (folder: string) => this.#writes.filesOf(folder);
    const early = this.job.plan.held ? null : nextCursor(this.job, new Set());
    if (early)
      await commitAgreed(
        this.#ctx.deps,
        this.#lease,
        { cursor: { owner: this.job.owner, to: early } },
        { owner: this.job.owner, what: 'cursor' },
      );
    await mapLimit(`,
} satisfies Mutant;
