/**
 * `docsync check [--json]`: is everything in place for docsync to work? The configuration,
 * the state database and its login, every route of the service that reads, the service's clock,
 * the folder (permissions, filesystem, inotify watches), the webhook URL and its signature, and
 * `status.listen`, one line each: ok,
 * warn or fail, with what to do. It changes nothing: no route that writes is called, no folder
 * or database is created, but before the first run, the state database that keeps a login
 * (check-service.ts). The only writes are those any docsync command makes to its state (a
 * DOCSYNC_REFRESH_TOKEN stored, a refreshed token stored, since the old one then stops working;
 * the document routes' prefix found on first contact). Exit 1 when a line fails, 0 otherwise.
 *
 * `--write ENTITY` instead proves the routes that write, on staging (check-write.ts); `--save
 * FILE` writes down every request and answer, secrets removed (remote/transcript.ts).
 */

import { open, rename } from 'node:fs/promises';
import path from 'node:path';
import { got } from 'got';
import { loadConfig, resolveConfigPath } from '../config/load-config.js';
import type { Config } from '../config/schema.js';
import { SERVICE_ENVIRONMENTS } from '../config/service-environments.js';
import { type AdviceForm, inAdviceForm } from '../domain/advice-form.js';
import { type CheckLine, checkCounts, checkExitCode, fail, ok } from '../domain/check-lines.js';
import { ConfigError } from '../domain/errors.js';
import { checkStore } from '../local/store-checks.js';
import { Transcript } from '../remote/transcript.js';
import { adviceFormHere } from './advice-here.js';
import { checkService } from './check-service.js';
import { checkStatusListen } from './check-status-listen.js';
import { checkWebhook } from './check-webhook.js';
import { askOnTerminal, checkWrites } from './check-write.js';
import type { Terminal } from './terminal.js';

export interface CheckCommandOptions {
  readonly config?: string | undefined;
  readonly json?: boolean;
  /** `--write ENTITY`: prove the routes that write, in that company or trust (check-write.ts). */
  readonly write?: string | undefined;
  readonly yes?: boolean;
  readonly allowProduction?: boolean;
  /** `--save FILE`: every request and answer, secrets removed (remote/transcript.ts). */
  readonly save?: string | undefined;
}

export async function checkCommand(
  options: CheckCommandOptions,
  terminal: Terminal,
): Promise<number> {
  const file = resolveConfigPath(options.config, terminal.env, terminal.cwd);
  const transcript = options.save ? new Transcript() : undefined;
  const checked =
    options.write !== undefined
      ? await runWriteCheck(file, options, terminal, transcript)
      : await runChecks(file, options.config, terminal, transcript);
  const lines = linesInAdviceForm(checked, adviceFormHere(terminal, options.config));
  const text = renderText(file, lines);
  terminal.stdout.write(options.json ? renderJson(file, lines) : text);
  if (options.save && transcript) {
    const header = [
      `docsync check${options.write !== undefined ? ` --write ${options.write}` : ''} transcript, ${new Date().toISOString()}`,
      `configuration ${file}`,
    ];
    // The name says the format: `check.json` is JSON (what `--json` prints, with the exchanges).
    const saved = options.save.toLowerCase().endsWith('.json')
      ? transcript.renderJson(header, JSON.parse(renderJson(file, lines)))
      : transcript.render(header, text);
    await saveTranscript(path.resolve(terminal.cwd, options.save), saved);
    terminal.stderr.write(
      `docsync: the check's requests and answers are in ${options.save} (secrets removed)\n`,
    );
  }
  return checkExitCode(lines);
}

export async function runChecks(
  file: string,
  flag: string | undefined,
  terminal: Pick<Terminal, 'env' | 'cwd'>,
  transcript?: Transcript,
): Promise<CheckLine[]> {
  const config = loaded(file, flag, terminal, transcript);
  if (!('service' in config)) return [config];
  const service = await checkService(config, transcript);
  const store = await checkStore({
    root: config.store.root,
    ignore: config.ignore,
    initialSyncDone: service.initialSyncDone,
    baseUrl: config.service.baseUrl,
    scanIntervalSeconds: config.watcher.scanIntervalSeconds,
  });
  const webhook = await checkWebhook(
    config,
    transcript ? got.extend({ hooks: transcript.hooks() }) : got,
  );
  const status = await checkStatusListen(config);
  return [configLine(file, config), ...service.lines, ...store, ...webhook, ...status];
}

async function runWriteCheck(
  file: string,
  options: CheckCommandOptions,
  terminal: Terminal,
  transcript: Transcript | undefined,
): Promise<CheckLine[]> {
  const config = loaded(file, options.config, terminal, transcript);
  if (!('service' in config)) return [config];
  return [
    configLine(file, config),
    ...(await checkWrites(config, {
      entity: options.write ?? '',
      yes: options.yes ?? false,
      allowProduction: options.allowProduction ?? false,
      transcript,
      confirm: (question) => askOnTerminal(terminal, question),
      clock: terminal.clock,
    })),
  ];
}

/** The configuration, or the line that says why it does not load. */
function loaded(
  file: string,
  flag: string | undefined,
  terminal: Pick<Terminal, 'env' | 'cwd'>,
  transcript?: Transcript,
): Config | CheckLine {
  let config: Config;
  try {
    config = loadConfig({ path: flag, env: terminal.env, cwd: terminal.cwd });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return configProblemLine(file, error);
  }
  // The configuration's secrets never reach a transcript, wherever they might show up.
  transcript?.secret(config.service.clientSecret);
  transcript?.secret(config.service.refreshToken);
  transcript?.secret(config.webhook.secret);
  return config;
}

/** Written whole or not at all, readable by its owner only: it still names the firm's clients. */
async function saveTranscript(file: string, text: string): Promise<void> {
  const temp = `${file}.${process.pid}.tmp`;
  const handle = await open(temp, 'w', 0o600);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, file);
}

/** Each problem on a line of its own, as `docsync run` lists them. */
function configProblemLine(file: string, error: ConfigError): CheckLine {
  const hint = 'Nothing else can be checked until the configuration loads: correct what is named.';
  if (error.code === 'CONFIG_MISSING') return fail('configuration', error.message, hint);
  const problems = error.problems.map((p) => `- ${p.key ? `${p.key}: ` : ''}${p.message}`);
  return fail('configuration', [`${file} is not valid:`, ...problems].join('\n'), hint, {
    problems: error.problems,
  });
}

function configLine(file: string, config: Config): CheckLine {
  const { environment, baseUrl, webUrl, routes } = config.service;
  const corrected = Object.keys(routes);
  const known = environment ? SERVICE_ENVIRONMENTS[environment] : undefined;
  // An environment whose URLs the file overrides names a service docsync does not talk to.
  const used = known !== undefined && (known.baseUrl === baseUrl || known.webUrl === webUrl);
  const unused =
    environment && !used
      ? `; service.environment "${environment}" is not used: service.baseUrl and service.webUrl override it`
      : '';
  return ok(
    'configuration',
    `${file} is valid; the service is ${used ? `${environment}, ` : ''}${baseUrl} (web ${webUrl})` +
      unused +
      (corrected.length > 0 ? `; corrected paths: ${corrected.join(', ')}` : ''),
    {
      environment: used ? environment : null,
      baseUrl,
      webUrl,
      correctedRoutes: corrected,
    },
  );
}

/** What a line advises, for the configuration checked, in the form that runs here. */
function linesInAdviceForm(lines: readonly CheckLine[], advice: AdviceForm): CheckLine[] {
  return lines.map((line) => ({
    ...line,
    message: inAdviceForm(line.message, advice),
    ...(line.hint ? { hint: inAdviceForm(line.hint, advice) } : {}),
  }));
}

const MARK = { ok: 'ok  ', warn: 'WARN', fail: 'FAIL', untried: '--  ' } as const;

export function renderText(file: string, lines: readonly CheckLine[]): string {
  const out = [`docsync check (${file})`, ''];
  for (const line of lines) {
    // A message of several lines (the configuration's problems) keeps its lines under the first.
    out.push(`${MARK[line.result]}  ${line.topic}: ${line.message.replaceAll('\n', '\n      ')}`);
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
