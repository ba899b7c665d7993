/**
 * One quiet cycle in a fresh process, so `strace` sees only its file opens and its cold start
 * costs the same as the floor's: `docsync <dir> <sim.json>` runs a cron cycle
 * (`fullReconcile: false`) on the state bench 2 synced; `floor <cursors.json> <sim.json>`
 * lists the same entities after the same `updatedAfter`; `floor-walk` also walks their
 * folders, and `floor-walk-node` does that with `node:http` instead of `fetch`. Prints
 * `{"ms": …}`.
 */
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { runCycle } from '../src/engine/run-cycle.js';
import { openEngine } from './lib/engine.js';
import { FloorClient, limiter, type Owner, ownerPath } from './lib/floor-client.js';
import type { SimProcess } from './lib/sim-process.js';

const [mode, arg, simFile] = process.argv.slice(2);
const info = JSON.parse(readFileSync(simFile!, 'utf8')) as SimProcess;
const sim: SimProcess = {
  ...info,
  mintRefreshToken: async () => {
    const response = await fetch(`${info.apiUrl}/_admin/refresh-tokens`, {
      method: 'POST',
      body: '{}',
    });
    return ((await response.json()) as { refreshToken: string }).refreshToken;
  },
} as SimProcess;

if (mode === 'docsync') {
  const engine = await openEngine(sim, arg!);
  // The token refresh is not part of a cycle the daemon runs every five minutes.
  await engine.remote.tokens.accessToken();
  const started = performance.now();
  const cpu = process.cpuUsage();
  const report = await runCycle(engine.deps, { trigger: 'cron', fullReconcile: false });
  const elapsed = performance.now() - started;
  const cpuMs = cpuMsSince(cpu);
  engine.close();
  process.stdout.write(`${JSON.stringify({ ms: elapsed, cpuMs, result: report.result })}\n`);
} else {
  const walk = mode === 'floor-walk' || mode === 'floor-walk-node';
  const cursors = JSON.parse(readFileSync(arg!, 'utf8')) as (Owner & {
    updatedAfter: string;
    folder: string;
  })[];
  const client = new FloorClient(sim, 4, mode === 'floor-walk-node' ? 'node:http' : 'fetch');
  await client.authorise();
  const entities = limiter(4);
  const started = performance.now();
  const cpu = process.cpuUsage();
  await Promise.all(
    cursors.map((c) =>
      entities(async () => {
        await client.list(
          `/${ownerPath(c)}/documents`,
          'documents',
          `&updatedAfter=${encodeURIComponent(c.updatedAfter)}`,
        );
        if (walk) walkFolder(c.folder);
      }),
    ),
  );
  const ms = performance.now() - started;
  process.stdout.write(`${JSON.stringify({ ms, cpuMs: cpuMsSince(cpu) })}\n`);
}

/** User + system CPU of this process since `from`, in ms: how busy its one thread was. */
function cpuMsSince(from: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(from);
  return (used.user + used.system) / 1000;
}

/** The least a sync can do to see local changes: list every folder and stat every entry. */
function walkFolder(folder: string): void {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const documentFolder = `${folder}/${entry.name}`;
    for (const name of readdirSync(documentFolder)) lstatSync(`${documentFolder}/${name}`);
  }
}
