#!/usr/bin/env node
// `npm run chaos -- --rounds N --seed S`: the chaos suite of `npm test`, one seed, longer. Vitest
// workers do not see the command line, so the arguments travel as CHAOS_ROUNDS and CHAOS_SEED.
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '30' }, seed: { type: 'string' } },
});
const seed = values.seed ?? String(Date.now() % 100_000);
for (const [name, value] of [
  ['--rounds', values.rounds],
  ['--seed', seed],
]) {
  if (!/^\d+$/.test(value)) {
    console.error(`chaos: ${name} expects a whole number, got "${value}"`);
    process.exit(1);
  }
}
const vitest = ['vitest', 'run', '--config', 'test/vitest.config.ts', 'test/chaos'];
const result = spawnSync('npx', vitest, {
  stdio: 'inherit',
  env: { ...process.env, CHAOS_ROUNDS: values.rounds, CHAOS_SEED: seed },
});
process.exit(result.status ?? 1);
