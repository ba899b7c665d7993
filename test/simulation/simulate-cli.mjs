#!/usr/bin/env node
// `npm run simulate -- --seeds N [--from S] [--trace] [--regressions] [--write-weights]
// [--coverage-log FILE] [--coverage-from FILE,…]`: the deterministic simulation over many seeds
// (docs/simulation.md). Vitest workers do not see the command line, so the arguments travel as
// SIM_* variables.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    seeds: { type: 'string', default: '100' },
    from: { type: 'string', default: '1' },
    trace: { type: 'boolean', default: false },
    regressions: { type: 'boolean', default: false },
    'write-weights': { type: 'boolean', default: false },
    'coverage-log': { type: 'string', default: '' },
    'coverage-from': { type: 'string', default: '' },
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
    SIM_WRITE_WEIGHTS: values['write-weights'] ? '1' : '0',
    // Absolute: vitest's workers may not share the command's directory.
    SIM_COVERAGE_LOG: values['coverage-log'] && path.resolve(values['coverage-log']),
    SIM_COVERAGE_FROM: values['coverage-from']
      .split(',')
      .filter((f) => f !== '')
      .map((f) => path.resolve(f))
      .join(','),
  },
});
process.exit(result.status ?? 1);
