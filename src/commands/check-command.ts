/**
 * `docsync check [--json]`: is everything in place for docsync to work? The configuration,
 * the state database and its login, every route of the service that reads, the service's clock,
 * the folder (permissions, filesystem, inotify watches) and the webhook URL, one line each: ok,
 * warn or fail, with what to do. It changes nothing: no route that writes is called, no folder
 * or database is created. The only writes are those any docsync command makes to its login (a
 * DOCSYNC_REFRESH_TOKEN stored, a refreshed token stored, since the old one then stops working).
 * Exit 1 when a line fails, 0 otherwise.
 */

import { loadConfig, resolveConfigPath } from '../config/load-config.js';
import type { Config } from '../config/schema.js';
import { type CheckLine, checkCounts, checkExitCode, fail, ok } from '../domain/check-lines.js';
import { ConfigError } from '../domain/errors.js';
import { checkStore } from '../local/store-checks.js';
import { checkService } from './check-service.js';
import { checkWebhook } from './check-webhook.js';

export async function checkCommand(options: {
  config?: string | undefined;
  json?: boolean;
}): Promise<void> {
  const file = resolveConfigPath(options.config, process.env);
  const lines = await runChecks(file, options.config);
  process.stdout.write(options.json ? renderJson(file, lines) : renderText(file, lines));
  process.exitCode = checkExitCode(lines);
}

export async function runChecks(file: string, flag: string | undefined): Promise<CheckLine[]> {
  let config: Config;
  try {
    config = loadConfig({ path: flag });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const problems = error.problems.map((p) => `${p.key ? `${p.key}: ` : ''}${p.message}`);
    return [
      fail(
        'configuration',
        `${file} is not valid: ${problems.join('; ')}`,
        'Nothing else can be checked until the configuration loads: correct what is named.',
      ),
    ];
  }
  const service = await checkService(config);
  const store = await checkStore({
    root: config.store.root,
    ignore: config.ignore,
    initialSyncDone: service.initialSyncDone,
    baseUrl: config.service.baseUrl,
    scanIntervalSeconds: config.watcher.scanIntervalSeconds,
  });
  return [configLine(file, config), ...service.lines, ...store, ...(await checkWebhook(config))];
}

function configLine(file: string, config: Config): CheckLine {
  const { environment, baseUrl, webUrl, routes } = config.service;
  const corrected = Object.keys(routes);
  return ok(
    'configuration',
    `${file} is valid; the service is ${environment ? `${environment}, ` : ''}${baseUrl} (web ${webUrl})` +
      (corrected.length > 0 ? `; corrected paths: ${corrected.join(', ')}` : ''),
    { environment: environment ?? null, baseUrl, webUrl, correctedRoutes: corrected },
  );
}

const MARK = { ok: 'ok  ', warn: 'WARN', fail: 'FAIL', untried: '--  ' } as const;

export function renderText(file: string, lines: readonly CheckLine[]): string {
  const out = [`docsync check (${file})`, ''];
  for (const line of lines) {
    out.push(`${MARK[line.result]}  ${line.topic}: ${line.message}`);
    if (line.hint) out.push(`      → ${line.hint}`);
  }
  const counts = checkCounts(lines);
  out.push(
    '',
    `${counts.ok} ok, ${counts.untried > 0 ? `${counts.untried} not tried, ` : ''}${counts.warn} ${counts.warn === 1 ? 'warning' : 'warnings'}, ${counts.fail} failed` +
      (counts.fail > 0 ? ': docsync cannot work as configured (exit 1)' : ''),
  );
  return `${out.join('\n')}\n`;
}

function renderJson(file: string, lines: readonly CheckLine[]): string {
  const counts = checkCounts(lines);
  return `${JSON.stringify({ config: file, ok: counts.fail === 0, counts, lines }, null, 2)}\n`;
}
