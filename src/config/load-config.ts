/**
 * Loads the configuration once, at the edge: file → environment overrides → schema → cross-key
 * checks → absolute paths → frozen object. Every problem is collected before anything throws.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describeIssues } from '../domain/describe-issues.js';
import { ConfigError, type ConfigProblem } from '../domain/errors.js';
import { placeholderProblems } from './placeholders.js';
import { type Config, configSchema, type LogLevel } from './schema.js';
import { isServiceEnvironment, SERVICE_ENVIRONMENTS } from './service-environments.js';

export const DEFAULT_CONFIG_PATH = 'config/docsync.json';

/** Environment variables that override (or supply) a key of the file. */
const ENV_OVERRIDES = [
  ['DOCSYNC_CLIENT_SECRET', ['service', 'clientSecret']],
  ['DOCSYNC_WEBHOOK_SECRET', ['webhook', 'secret']],
  ['DOCSYNC_REFRESH_TOKEN', ['service', 'refreshToken']],
] as const;

export interface LoadConfigOptions {
  /** `--config`; falls back to DOCSYNC_CONFIG, then config/docsync.json. */
  readonly path?: string | undefined;
  readonly env?: NodeJS.ProcessEnv;
  /** Relative paths in the file (store.root, state.path) resolve against this. */
  readonly cwd?: string;
  /** `--log-level`, `-v`, `-q`: the command line's level, over the file's `log.level`. */
  readonly logLevel?: LogLevel | undefined;
}

export function resolveConfigPath(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  return flag ?? env.DOCSYNC_CONFIG ?? DEFAULT_CONFIG_PATH;
}

export function loadConfig(options: LoadConfigOptions = {}): Config {
  const env = options.env ?? process.env;
  const file = resolveConfigPath(options.path, env);
  const raw = readJson(file);
  if (options.logLevel !== undefined && isPlainObject(raw)) {
    raw.log = { ...(isPlainObject(raw.log) ? raw.log : {}), level: options.logLevel };
  }
  return parseConfig(raw, { env, cwd: options.cwd ?? process.cwd(), source: file });
}

export function parseConfig(
  raw: unknown,
  options: { env: NodeJS.ProcessEnv; cwd: string; source: string },
): Config {
  if (!isPlainObject(raw)) {
    throw new ConfigError(options.source, [
      { key: '', message: 'expected a JSON object at the top' },
    ]);
  }
  const withEnv = applyServiceEnvironment(applyEnvOverrides(raw, options.env));
  const result = configSchema.safeParse(withEnv, { reportInput: true });
  const problems = [
    ...(result.success ? [] : describeIssues(result.error.issues)),
    ...crossKeyProblems(withEnv),
    ...placeholderProblems(withEnv),
  ];
  if (!result.success || problems.length > 0) throw new ConfigError(options.source, problems);

  const config = result.data;
  config.store.root = path.resolve(options.cwd, config.store.root);
  config.state.path = path.resolve(options.cwd, config.state.path);
  return deepFreeze(config);
}

function readJson(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === 'ENOENT'
        ? 'file not found; copy config/docsync.example.json and edit it, or pass --config'
        : `cannot read the file: ${(error as Error).message}`;
    throw new ConfigError(file, [{ key: '', message: reason }]);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ConfigError(file, [
      { key: '', message: `not valid JSON: ${(error as Error).message}` },
    ]);
  }
}

function applyEnvOverrides(raw: Record<string, unknown>, env: NodeJS.ProcessEnv) {
  const copy = structuredClone(raw);
  for (const [name, [section, key]] of ENV_OVERRIDES) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    const target = isPlainObject(copy[section]) ? copy[section] : {};
    target[key] = value;
    copy[section] = target;
  }
  return copy;
}

/**
 * `service.environment` supplies the URLs the file leaves out; keys the file sets win. An
 * unknown environment is left for the schema to report.
 */
function applyServiceEnvironment(raw: Record<string, unknown>): Record<string, unknown> {
  const service = raw.service;
  if (!isPlainObject(service) || !isServiceEnvironment(service.environment)) return raw;
  const known = SERVICE_ENVIRONMENTS[service.environment];
  return {
    ...raw,
    service: {
      ...service,
      baseUrl: service.baseUrl ?? known.baseUrl,
      webUrl: service.webUrl ?? known.webUrl,
    },
  };
}

/** Rules that span keys; checked on the raw input so they are reported beside schema problems. */
function crossKeyProblems(raw: Record<string, unknown>): ConfigProblem[] {
  return [...webhookProblems(raw), ...statusProblems(raw)];
}

/** The stable document links are served by the status listener: it must be on. */
function statusProblems(raw: Record<string, unknown>): ConfigProblem[] {
  const status = isPlainObject(raw.status) ? raw.status : {};
  if (status.publicUrl === undefined || status.enabled !== false) return [];
  return [
    {
      key: 'status.publicUrl',
      message:
        'the status listener serves the document links: set status.enabled to true, or remove status.publicUrl',
    },
  ];
}

function webhookProblems(raw: Record<string, unknown>): ConfigProblem[] {
  const webhook = isPlainObject(raw.webhook) ? raw.webhook : {};
  const receiverOn = webhook.enabled !== false;
  if (!receiverOn || webhook.allowUnsigned === true) return [];
  const problems: ConfigProblem[] = [];
  if (webhook.clientCode === undefined) {
    problems.push({
      key: 'webhook.clientCode',
      message: 'required while the webhook receiver is on',
    });
  }
  if (webhook.secret === undefined) {
    problems.push({
      key: 'webhook.secret',
      message: 'required while the webhook receiver is on (or set DOCSYNC_WEBHOOK_SECRET)',
    });
  }
  return problems;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
