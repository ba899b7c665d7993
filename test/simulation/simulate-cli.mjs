#!/usr/bin/env node
// `npm run simulate -- --seeds N [--from S] [--trace] [--regressions]`: the deterministic
// simulation over many seeds (docs/simulation.md). Vitest workers do not see the command line,
// so the arguments travel as SIM_SEEDS, SIM_FROM, SIM_TRACE and SIM_REGRESSIONS.
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    seeds: { type: 'string', default: '100' },
    from: { type: 'string', default: '1' },
    trace: { type: 'boolean', default: false },
    regressions: { type: 'boolean', default: false },
  },
});
for (const [name, value] of [
  ['--seeds', values.seeds],
  ['--from', values.from],
]) {
  if (!/^\d+$/.test(value)) {
    console.error(`simulate: ${name} expects a whole number, got "${value}"`);
    process.exit(1);
  }
}
const vitest = ['vitest', 'run', '--config', 'test/simulation/vitest.simulate.config.ts'];
const result = spawnSync('npx', vitest, {
  stdio: 'inherit',
  env: {
    ...process.env,
    SIM_SEEDS: values.seeds,
    SIM_FROM: values.from,
    SIM_TRACE: values.trace ? '1' : '0',
    SIM_REGRESSIONS: values.regressions ? '1' : '0',
  },
});
process.exit(result.status ?? 1);
