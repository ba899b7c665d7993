#!/usr/bin/env node
// `npm run mutants -- [--only id[,id]] [--seeds N] [--from S] [--no-tests] [--out file.md]`:
// puts each mutant of the catalogue (test/mutants/catalogue/) into a scratch copy of the
// repository, one at a time, and asks whether the random simulation catches it (seeds from S,
// stopping at the first that finds something the unmutated code does not), then whether its
// related tests do. The real tree is never changed: the scratch copy is under /dev/shm (or the
// system's temp folder) and goes when the run ends, however it ends. docs/simulation.md,
// "Mutants", says what the table means.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { applyMutant, loadCatalogue } from './apply-mutant.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** What a scratch copy holds besides node_modules (a link): what the tests and the build read. */
const COPIED = ['src', 'test', 'docs', 'config', 'package.json', 'tsconfig.json', 'README.md'];
const MODULES = realpathSync(path.join(ROOT, 'node_modules'));
const VITEST = path.join(MODULES, 'vitest/vitest.mjs');
const TSC = path.join(MODULES, 'typescript/bin/tsc');

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    seeds: { type: 'string', default: '500' },
    from: { type: 'string', default: '1' },
    'no-tests': { type: 'boolean', default: false },
    'no-baseline': { type: 'boolean', default: false },
    out: { type: 'string' },
    logs: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log(`npm run mutants -- [options]
  --only id[,id]  these mutants only (an id, or its number: m07 or 7)
  --seeds N       random seeds per mutant, at most (default 500); stops at the first finding
  --from S        the first seed (default 1)
  --no-tests      the simulation only, not the related tests
  --no-baseline   count every finding (by default the seeds are first run without a mutant,
                  and what a seed finds there is not the mutant's)
  --out file.md   also write the table as markdown
  --logs dir      where each run's output goes (default: a new folder under the temp folder)`);
  process.exit(0);
}
for (const [name, value] of [
  ['--seeds', values.seeds],
  ['--from', values.from],
]) {
  if (!/^\d+$/.test(value) || Number(value) < 1) {
    console.error(`mutants: ${name} expects a whole number from 1, got "${value}"`);
    process.exit(1);
  }
}
const seeds = Number(values.seeds);
const from = Number(values.from);

const catalogue = loadCatalogue(ROOT);
const chosen = pick(catalogue, values.only);
const tmp = existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();
const scratch = path.join(tmp, `docsync-mutants-${process.pid}`);
const logs = path.resolve(
  values.logs ??
    path.join(
      os.tmpdir(),
      `docsync-mutants-${new Date().toISOString().slice(0, 19).replace(/:/g, '')}`,
    ),
);
mkdirSync(logs, { recursive: true });

/** The child running now, stopped with the run. */
let child = null;
let cleaned = false;
function cleanUp() {
  if (cleaned) return;
  cleaned = true;
  if (child?.pid) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {}
  }
  rmSync(scratch, { recursive: true, force: true });
}
process.on('exit', cleanUp);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'])
  process.on(signal, () => {
    console.error(
      `\nmutants: ${signal}, the scratch copy is removed; the real tree was never changed`,
    );
    cleanUp();
    process.exit(130);
  });

/** The mutants `--only` names (ids, or their numbers), in catalogue order. */
function pick(all, only) {
  if (!only) return all;
  const wanted = only
    .split(',')
    .map((w) => w.trim())
    .filter(Boolean);
  return wanted.map((w) => {
    const number = /^m?(\d+)$/.exec(w)?.[1];
    const found = all.filter((m) =>
      number ? Number(/^m(\d+)/.exec(m.id)?.[1]) === Number(number) : m.id === w,
    );
    if (found.length !== 1) {
      console.error(`mutants: no mutant "${w}" (ids: ${all.map((m) => m.id).join(', ')})`);
      process.exit(1);
    }
    return found[0];
  });
}

function makeScratch() {
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  for (const entry of COPIED)
    if (existsSync(path.join(ROOT, entry)))
      cpSync(path.join(ROOT, entry), path.join(scratch, entry), { recursive: true });
  symlinkSync(MODULES, path.join(scratch, 'node_modules'));
}

function gitCommit() {
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' });
  const dirty = spawnSync('git', ['status', '--porcelain', 'src'], { cwd: ROOT, encoding: 'utf8' });
  return `${head.stdout.trim() || 'unknown'}${dirty.stdout.trim() ? ' (src changed since)' : ''}`;
}

/**
 * Runs `node <args>` in the scratch copy in its own process group (so a stop takes all of it),
 * output to `logFile`; resolves with its exit code, or 'timeout'.
 */
function run(args, { env = {}, logFile, timeoutMs }) {
  return new Promise((resolve) => {
    const out = [];
    child = spawn(process.execPath, args, {
      cwd: scratch,
      env: { ...process.env, ...env },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => out.push(d));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {}
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      child = null;
      writeFileSync(logFile, Buffer.concat(out));
      resolve(timedOut ? 'timeout' : code);
    });
  });
}

/** The random seeds in the scratch copy as it is now; the watch's result (mutant-watch.ts). */
async function simulate(name, { stopAtFirst, baselineFile }) {
  const resultFile = path.join(logs, `${name}.sim.json`);
  rmSync(resultFile, { force: true });
  const began = performance.now();
  const code = await run([VITEST, 'run', '--config', 'test/simulation/vitest.simulate.config.ts'], {
    env: {
      SIM_SEEDS: String(seeds),
      SIM_FROM: String(from),
      SIM_TRACE: '0',
      SIM_REGRESSIONS: '0',
      SIM_RESULT: resultFile,
      ...(stopAtFirst ? { SIM_STOP_AT_FIRST: '1' } : {}),
      ...(baselineFile ? { SIM_BASELINE: baselineFile } : {}),
    },
    logFile: path.join(logs, `${name}.sim.log`),
    // A seed takes well under a second; a mutant that makes one hang is cut off.
    timeoutMs: 5 * 60_000 + seeds * 2_000,
  });
  const minutes = (performance.now() - began) / 60_000;
  const result = existsSync(resultFile) ? JSON.parse(readFileSync(resultFile, 'utf8')) : null;
  return { name, code, result, minutes };
}

/**
 * The seeds without any mutant: what a seed finds there is today's, not a mutant's. Kept by the
 * hash of src and test/simulation, so runs on the same code share it.
 */
async function baselineRun() {
  const hash = createHash('sha256');
  for (const dir of ['src', 'test/simulation']) hashTree(hash, path.join(ROOT, dir));
  const key = `${hash.digest('hex').slice(0, 16)}-${from}-${seeds}`;
  const cached = path.join(os.tmpdir(), `docsync-mutants-baseline-${key}.json`);
  if (existsSync(cached)) {
    const found = Object.keys(JSON.parse(readFileSync(cached, 'utf8')).found);
    console.log(`baseline (kept from an earlier run): ${describeBaseline(found)}`);
    return cached;
  }
  process.stdout.write(`baseline: seeds ${from} to ${from + seeds - 1} without a mutant … `);
  const { code, result, minutes } = await simulate('baseline', { stopAtFirst: false });
  if (!result?.done) {
    console.log(
      `\nmutants: the baseline run did not finish (${code}); see ${logs}/baseline.sim.log`,
    );
    process.exit(1);
  }
  console.log(
    `${describeBaseline(Object.keys(result.found))}; ${Math.round(result.runs / minutes)} seeds a minute`,
  );
  writeFileSync(cached, JSON.stringify(result));
  return cached;
}

function describeBaseline(found) {
  return found.length === 0
    ? 'no seed finds anything'
    : `seeds ${found.join(', ')} find something already (not counted for a mutant unless it finds something else)`;
}

function hashTree(hash, dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
    a.name < b.name ? -1 : 1,
  )) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) hashTree(hash, full);
    // By the path inside the repository: a worktree elsewhere with the same code shares it.
    else hash.update(path.relative(ROOT, full)).update(readFileSync(full));
  }
}

async function runMutant(mutant) {
  const target = path.join(scratch, mutant.file);
  const original = readFileSync(path.join(ROOT, mutant.file), 'utf8');
  let mutated;
  try {
    mutated = applyMutant(original, mutant);
  } catch (error) {
    console.log(`\n${mutant.id}: STALE (${error.message})`);
    return { mutant, stale: true };
  }
  console.log(`\n${mutant.id} (${mutant.bugClass}): ${mutant.what}`);
  writeFileSync(target, mutated);
  try {
    const sim = await simulate(mutant.id, { stopAtFirst: true, baselineFile: baseline });
    const seedsLine = describeSim(sim);
    console.log(`  random seeds: ${seedsLine}`);
    const tests = values['no-tests'] ? null : await relatedTests(mutant);
    if (tests) console.log(`  related tests: ${describeTests(tests)}`);
    return { mutant, sim, tests };
  } finally {
    writeFileSync(target, original);
    rmSync(path.join(scratch, 'dist'), { recursive: true, force: true });
  }
}

/** Caught: the first seed, its invariant, the seeds it took; or how far it got. */
function caughtBySeeds(sim) {
  if (sim.code === 'timeout') {
    const seed = sim.result?.lastSeed ?? null;
    return seed === null ? null : { seed, invariant: 'a seed never ended (cut off)', detail: '' };
  }
  return sim.result?.first ?? null;
}

const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

function describeSim(sim) {
  const caught = caughtBySeeds(sim);
  const rate = sim.result ? `, ${Math.round(sim.result.runs / sim.minutes)} a minute` : '';
  if (caught)
    return `CAUGHT at seed ${caught.seed} (${plural(caught.seed - from + 1, 'seed')}${rate}): ${caught.invariant}${
      caught.detail ? ` — ${caught.detail.slice(0, 300)}` : ''
    }`;
  if (!sim.result?.done)
    return `the run failed before its end (exit ${sim.code}); see ${logs}/${sim.name}.sim.log`;
  return `survived ${sim.result.runs} seeds${rate}`;
}

/**
 * Whether a related test needs dist/ (a child process of the built CLI): the test file, or a
 * helper it imports, starts one. In-process runs of the CLI (run-cli.ts's `runCli`) do not.
 */
function needsBuild(file, seen = new Set()) {
  if (seen.has(file) || !existsSync(file)) return false;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  // run-cli.ts starts the built CLI only when asked for a umask or a user (runCliProcess).
  const starts =
    path.basename(file) === 'run-cli.ts'
      ? false
      : /distModuleUrl\(|runCliProcess\(|\bspawn\(|\bfork\(|execFile|dist\/cli\.js/.test(text) ||
        /\b(umask|user): /.test(text);
  if (starts) return true;
  for (const [, spec] of text.matchAll(/from '(\.\.?\/[^']+)'/g)) {
    const next = path.resolve(path.dirname(file), spec.replace(/\.js$/, '.ts'));
    if (next.startsWith(path.join(scratch, 'test')) && needsBuild(next, seen)) return true;
  }
  return false;
}

function build(name) {
  return run([TSC, '-p', 'src'], {
    logFile: path.join(logs, `${name}.build.log`),
    timeoutMs: 10 * 60_000,
  });
}

async function vitest(name, files) {
  const report = path.join(logs, `${name}.json`);
  rmSync(report, { force: true });
  const code = await run(
    [
      VITEST,
      'run',
      '--config',
      'test/vitest.config.ts',
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${report}`,
      ...files,
    ],
    { logFile: path.join(logs, `${name}.log`), timeoutMs: 20 * 60_000 },
  );
  const failing = new Set();
  if (existsSync(report)) {
    for (const file of JSON.parse(readFileSync(report, 'utf8')).testResults ?? [])
      if (file.status !== 'passed') failing.add(path.relative(scratch, file.name));
  } else if (code !== 0) for (const f of files) failing.add(f);
  return { code, failing: [...failing] };
}

/**
 * The mutant's related tests. A test that fails is run again on the code without the mutant: one
 * that fails there too says nothing about the mutant.
 */
async function relatedTests(mutant) {
  const files = mutant.relatedTests.filter((f) => existsSync(path.join(scratch, f)));
  const missing = mutant.relatedTests.filter((f) => !files.includes(f));
  if (files.length === 0) return { files, failing: [], missing, flaky: [] };
  let built = files.some((f) => needsBuild(path.join(scratch, f)));
  if (built && (await build(`${mutant.id}.mutant`)) !== 0)
    return { files, failing: [], missing, flaky: [], error: 'the build failed' };
  let mutated = await vitest(`${mutant.id}.tests`, files);
  // A test that starts the built CLI in a way needsBuild did not see: built, and run again.
  if (mutated.failing.length > 0 && !built) {
    built = true;
    if ((await build(`${mutant.id}.mutant`)) !== 0)
      return { files, failing: [], missing, flaky: [], error: 'the build failed' };
    mutated = await vitest(`${mutant.id}.tests-built`, mutated.failing);
  }
  if (mutated.failing.length === 0) return { files, failing: [], missing, flaky: [] };
  const target = path.join(scratch, mutant.file);
  const current = readFileSync(target, 'utf8');
  writeFileSync(target, readFileSync(path.join(ROOT, mutant.file), 'utf8'));
  try {
    if (built) await build(`${mutant.id}.clean`);
    const clean = await vitest(`${mutant.id}.clean-tests`, mutated.failing);
    const flaky = mutated.failing.filter((f) => clean.failing.includes(f));
    return {
      files,
      failing: mutated.failing.filter((f) => !flaky.includes(f)),
      missing,
      flaky,
    };
  } finally {
    writeFileSync(target, current);
  }
}

function describeTests(tests) {
  const parts = [];
  if (tests.error) parts.push(tests.error);
  parts.push(
    tests.failing.length > 0
      ? `CAUGHT by ${tests.failing.join(', ')}`
      : `all ${tests.files.length} pass`,
  );
  if (tests.flaky.length > 0)
    parts.push(`failing without the mutant too: ${tests.flaky.join(', ')}`);
  if (tests.missing.length > 0) parts.push(`missing: ${tests.missing.join(', ')}`);
  return parts.join('; ');
}

function verdictOf(r) {
  if (r.stale) return 'stale';
  const caught = caughtBySeeds(r.sim);
  if (caught) return 'seeds';
  if (r.tests?.failing.length > 0) return 'tests only';
  if (!r.sim.result?.done && r.sim.code !== 'timeout') return 'run failed';
  return 'survived';
}

function summarise(all) {
  const count = (pred) => all.filter(pred).length;
  const seedsNeeded = (r) => {
    const c = r.sim && caughtBySeeds(r.sim);
    return c ? c.seed - from + 1 : null;
  };
  const within = (n) =>
    count((r) => verdictOf(r) === 'seeds' && seedsNeeded(r) !== null && seedsNeeded(r) <= n);
  const lines = [
    `mutants: ${all.length}, seeds ${from} to ${from + seeds - 1}`,
    `  caught by random seeds within 100: ${within(100)}`,
    `  caught by random seeds within ${seeds}: ${within(seeds)}`,
    `  caught by the related tests only: ${count((r) => verdictOf(r) === 'tests only')}`,
    `  survived: ${count((r) => verdictOf(r) === 'survived')}`,
  ];
  const stale = count((r) => verdictOf(r) === 'stale');
  if (stale > 0) lines.push(`  stale (their code changed; mend the catalogue): ${stale}`);
  const failed = count((r) => verdictOf(r) === 'run failed');
  if (failed > 0) lines.push(`  the simulation failed to run: ${failed}`);
  const sims = all.filter((r) => r.sim?.result);
  const runs = sims.reduce((n, r) => n + r.sim.result.runs, 0);
  const minutes = sims.reduce((n, r) => n + r.sim.minutes, 0);
  if (minutes > 0)
    lines.push(
      `  seeds run: ${runs} in ${Math.round(minutes)} min (${Math.round(runs / minutes)} a minute, each run's start included)`,
    );
  return lines.join('\n');
}

/** `test/scenarios/delete-hold.test.ts` as `scenarios/delete-hold`: unit and scenario share names. */
const shortTest = (file) => path.relative('test', file).replace(/\.test\.ts$/, '');

function markdown(all, summary, planned) {
  const cell = (s) => String(s).replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const rows = all.map((r) => {
    const m = r.mutant;
    if (r.stale) return `| ${m.id} | ${cell(m.bugClass)} | stale | | stale |`;
    const caught = caughtBySeeds(r.sim);
    const seedsCell = caught
      ? `seed ${caught.seed} (${plural(caught.seed - from + 1, 'seed')}): ${cell(caught.invariant)}`
      : r.sim.result?.done
        ? `none of ${r.sim.result.runs}`
        : 'the run failed';
    const testsCell = !r.tests
      ? 'not run'
      : r.tests.failing.length > 0
        ? `${r.tests.failing.length} of ${r.tests.files.length} fail: ${r.tests.failing.map(shortTest).join(', ')}`
        : `all ${r.tests.files.length} pass`;
    return `| ${m.id} | ${cell(m.bugClass)} | ${seedsCell} | ${testsCell} | ${verdictOf(r)} |`;
  });
  return [
    `Mutants on ${commit}, ${new Date().toISOString().slice(0, 10)}, seeds ${from} to ${from + seeds - 1}${
      all.length < planned ? ` (${all.length} of ${planned} so far)` : ''
    }:`,
    '',
    '| Mutant | Class | Random seeds (first, seeds needed, invariant) | Related tests | Caught by |',
    '|---|---|---|---|---|',
    ...rows,
    '',
    '```',
    summary,
    '```',
    '',
  ].join('\n');
}

// The run itself, after every function and constant above is defined.
makeScratch();
const commit = gitCommit();
console.log(
  `mutants: ${chosen.length} of ${catalogue.length}, seeds ${from} to ${from + seeds - 1}, ` +
    `${values['no-tests'] ? 'no tests' : 'with related tests'}, on ${commit}; logs in ${logs}`,
);

const baseline = values['no-baseline'] ? null : await baselineRun();
const results = [];
for (const mutant of chosen) {
  results.push(await runMutant(mutant));
  // Written after each mutant, so a long run cut short still leaves its table.
  if (values.out && results.length < chosen.length)
    writeFileSync(path.resolve(values.out), markdown(results, summarise(results), chosen.length));
}
const summary = summarise(results);
console.log(`\n${summary}`);
if (values.out) {
  const out = path.resolve(values.out);
  writeFileSync(out, markdown(results, summary, chosen.length));
  console.log(`the table is in ${out}`);
}
cleanUp();
