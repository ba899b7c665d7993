/**
 * `docsync demo`: the whole job against the built-in simulator, with nothing to configure.
 * Starts the simulator with the demo firm, syncs it into ./demo-documents (state kept in the
 * folder's own .docsync/, so a second demo run is an ordinary, quiet re-sync), and says what
 * landed where.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { type App, clientOptions, engineDeps } from '../compose.js';
import { parseConfig } from '../config/load-config.js';
import { REAL_CLOCK } from '../domain/clock.js';
import { plural } from '../domain/words.js';
import { runCycle } from '../engine/run-cycle.js';
import { createLogger } from '../log/create-logger.js';
import { createRemote } from '../remote/create-client.js';
import { startSimulator } from '../simulator/index.js';
import { InstanceLock } from '../state/instance-lock.js';
import { openState } from '../state/open-state.js';
import type { GlobalOptions } from './index.js';
import { selfOn } from './self-command.js';
import type { Terminal } from './terminal.js';

export async function demoCommand(options: GlobalOptions, terminal: Terminal): Promise<number> {
  const root = path.resolve(terminal.cwd, 'demo-documents');
  // The demo's simulator serves only this run: a rate limit, and docsync's pace for a real
  // service's, would only keep the person waiting.
  const sim = await startSimulator({ seed: 'demo', rateLimitPerSecond: 0 });
  try {
    const config = parseConfig(
      {
        service: {
          baseUrl: sim.apiUrl,
          webUrl: sim.webUrl,
          clientId: sim.clientId,
          clientSecret: sim.clientSecret,
          // The simulator's link host is plain http on loopback: allowed only when listed.
          linkHosts: [sim.linkUrl],
        },
        store: { root },
        state: { path: path.join(root, '.docsync', 'demo-state.db') },
        webhook: { enabled: false },
        status: { enabled: false },
        log: { level: 'warn' },
        queue: { requestsPerSecond: 1000, concurrency: 4 },
      },
      { env: {}, baseDir: terminal.cwd, source: 'docsync demo' },
    );
    const logger = createLogger({
      level: options.logLevel ?? 'warn',
      destination: terminal.stderr,
      pretty: terminal.stderr.isTTY === true,
    });
    const state = openState(config);
    state.tokens.seedRefreshToken(sim.admin.mintRefreshToken());
    const remote = createRemote({
      ...clientOptions(config),
      tokenStore: state.tokens,
      time: REAL_CLOCK,
    });
    const app: App = {
      config,
      logger,
      state,
      remote,
      clock: terminal.clock,
      close: () => state.close(),
    };
    const lock = InstanceLock.acquire(state.db);
    try {
      terminal.stdout.write(
        `Simulator running at ${sim.apiUrl}; syncing its demo firm into ${root} ...\n`,
      );
      const report = await runCycle(engineDeps(app), { trigger: 'once', fullReconcile: true });
      terminal.stdout.write(await summary(root, report.actions, selfOn(terminal)));
      return report.exitCode;
    } finally {
      lock.release();
      app.close();
    }
  } finally {
    await sim.close();
  }
}

async function summary(root: string, actions: number, self: string): Promise<string> {
  const lines = [`\n${plural(actions, 'change')} applied. The folder now holds:`];
  for (const top of ['Companies', 'Trusts']) {
    const entities = (
      await readdir(path.join(root, top), { withFileTypes: true }).catch(() => [])
    ).filter((e) => e.isDirectory());
    for (const entity of entities) {
      const docs = (
        await readdir(path.join(root, top, entity.name), { withFileTypes: true })
      ).filter((d) => d.isDirectory());
      let files = 0;
      for (const doc of docs) {
        files += (await readdir(path.join(root, top, entity.name, doc.name))).filter(
          (f) => !f.startsWith('.'),
        ).length;
      }
      lines.push(
        `  ${top}/${entity.name}: ${plural(docs.length, 'document')}, ${plural(files, 'file')}`,
      );
    }
  }
  lines.push(
    '',
    'Each document folder has a .document.json (edit "status" there to change it in the service)',
    'and each entity folder an "Open in compliance service.url" shortcut.',
    '',
    'To sync both ways with the daemon, run the simulator in one terminal (until Ctrl+C):',
    `  ${self} simulator --seed demo`,
    'and in another, write a configuration for it and run what it prints next:',
    `  ${self} init --for simulator`,
    '',
  );
  return lines.join('\n');
}
