/**
 * Issue 25's cases, and the bugs found besides (by random seeds, the chaos suite, a crash at a
 * chosen failpoint), as scripted scenarios of the simulation (regressions.ts,
 * regressions-found.ts): each plays its case through the whole daemon on a virtual clock
 * and must end with no finding. A failure prints the scenario's trace and the daemon's last
 * warnings, which is what `npm run simulate -- --regressions` prints too.
 */
import { describe, expect, it } from 'vitest';
import { runScenario, SCENARIOS } from './regressions.js';

describe('the named cases as scenarios of the whole daemon', () => {
  it.each(SCENARIOS.map((s) => [s.name, s.title, s] as const))(
    '%s: %s',
    async (_name, _title, scenario) => {
      const outcome = await runScenario(scenario);
      const found = outcome.findings.map((f) => `${f.invariant}: ${f.detail}`);
      const story = [...outcome.trace, '--- the daemon said', ...outcome.log].join('\n');
      expect(found, story).toEqual([]);
      for (const line of scenario.expectInTrace ?? [])
        expect(
          outcome.trace.some((l) => l.includes(line)),
          `the trace shows "${line}":\n${story}`,
        ).toBe(true);
    },
    60_000,
  );
});
