/**
 * Loads the configuration once, at the edge: file (found by config-location.ts) → environment
 * (the process's, over the environment file beside the configuration) → schema → cross-key
 * checks → absolute paths → frozen object. Every problem is collected before anything throws.
 */
import { existsSync, readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import path from 'node:path';
import { describeIssues } from '../domain/describe-issues.js';
import { ConfigError, type ConfigProblem } from '../domain/errors.js';
import {
  type ConfigLocation,
  ENV_FILE_BESIDE,
  envFileOf,
  locateConfig,
  missingConfigMessage,
} from './config-location.js';
import { readEnvFile } from './env-file.js';
import { placeholderProblems } from './placeholders.js';
import { type Config, configKeysAt, configSchema, type LogLevel } from './schema.js';
import { isServiceEnvironment, SERVICE_ENVIRONMENTS } from './service-environments.js';

/** Environment variables that override (or supply) a key of the file. */
export const ENV_OVERRIDES = [
  ['DOCSYNC_CLIENT_SECRET', ['service', 'clientSecret']],
  ['DOCSYNC_WEBHOOK_SECRET', ['webhook', 'secret']],
  ['DOCSYNC_REFRESH_TOKEN', ['service', 'refreshToken']],
] as const;

const ENV_NAMES = ENV_OVERRIDES.map(([name]) => name);

/** The paths of the file; a relative one is the configuration file's folder's. */
const PATH_KEYS = [
  ['store', 'root'],
  ['state', 'path'],
] as const;

export interface LoadConfigOptions {
  /** `--config`; falls back to DOCSYNC_CONFIG, then the default places (config-location.ts). */
  readonly path?: string | undefined;
  readonly env?: NodeJS.ProcessEnv;
  /** Where `config/docsync.json` is looked for, and where `--config` is relative to. */
  readonly cwd?: string;
  /** `--log-level`, `-v`, `-q`: the command line's level, over the file's `log.level`. */
  readonly logLevel?: LogLevel | undefined;
}

/** The configuration file a command reads (config-location.ts), for messages and `check`. */
export function resolveConfigPath(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
  cwd: string = process.cwd(),
): string {
  return locateConfig(flag, env, { cwd, exists: existsSync }).file;
}

export function loadConfig(options: LoadConfigOptions = {}): Config {
  const cwd = options.cwd ?? process.cwd();
  const location = locateConfig(options.path, options.env ?? process.env, {
    cwd,
    exists: existsSync,
  });
  const file = path.resolve(cwd, location.file);
  const raw = readJson(file, location, cwd);
  if (options.logLevel !== undefined && isPlainObject(raw)) {
    raw.log = { ...(isPlainObject(raw.log) ? raw.log : {}), level: options.logLevel };
  }
  const envFile = readEnvFile(envFileOf(file), ENV_NAMES);
  // The process's environment wins (systemd's, or a variable set for one command), unless empty.
  const given = Object.entries(options.env ?? process.env).filter(([, value]) => value);
  const env = { ...envFile.values, ...Object.fromEntries(given) };
  const baseDir = path.dirname(file);
  let config: Config;
  try {
    config = parseConfig(
      raw,
      { env, baseDir, source: location.file, envFile: envFileOf(file) },
      envFile.problems,
    );
  } catch (error) {
    throw withUnreadableEnvFile(error, envFile.unreadable, envFileOf(file));
  }
  const moved = movedPaths(raw, baseDir, cwd);
  if (moved.length > 0) throw new ConfigError(location.file, moved);
  return config;
}

export function parseConfig(
  raw: unknown,
  options: {
    env: NodeJS.ProcessEnv;
    baseDir: string;
    source: string;
    /** The environment file beside the configuration: where a missing secret is to be written. */
    envFile?: string;
  },
  earlier: readonly ConfigProblem[] = [],
): Config {
  if (!isPlainObject(raw)) {
    throw new ConfigError(options.source, [
      { key: '', message: 'expected a JSON object at the top' },
    ]);
  }
  const withEnv = applyServiceEnvironment(applyEnvOverrides(raw, options.env));
  const result = configSchema.safeParse(withEnv, { reportInput: true });
  const problems = [
    ...earlier,
    ...(result.success ? [] : describeIssues(result.error.issues, configKeysAt)),
    ...crossKeyProblems(withEnv),
    ...placeholderProblems(withEnv),
  ];
  if (!result.success || problems.length > 0) {
    throw new ConfigError(options.source, namingEnvFile(problems, options.envFile));
  }

  const config = result.data;
  config.store.root = path.resolve(options.baseDir, config.store.root);
  config.state.path = path.resolve(options.baseDir, config.state.path);
  return deepFreeze(config);
}

function readJson(file: string, location: ConfigLocation, cwd: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      const missing = missingConfigMessage(location, cwd);
      throw new ConfigError(location.file, [{ key: '', message: missing }], `${missing}.`);
    }
    throw new ConfigError(location.file, [
      { key: '', message: `cannot read the file: ${(error as Error).message}` },
    ]);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ConfigError(location.file, [
      { key: '', message: `not valid JSON: ${(error as Error).message}` },
    ]);
  }
}

/**
 * A relative path that named something from the working directory, as docsync once resolved
 * it, and names nothing from the configuration's folder: starting there would make a new state
 * database (or folder) beside the old one, so the key is named with the absolute path to write.
 */
function movedPaths(raw: unknown, baseDir: string, cwd: string): ConfigProblem[] {
  if (path.resolve(baseDir) === path.resolve(cwd) || !isPlainObject(raw)) return [];
  return PATH_KEYS.flatMap(([section, key]) => {
    const block = raw[section];
    const given = isPlainObject(block) ? block[key] : undefined;
    const value = typeof given === 'string' ? given : key === 'path' ? 'state/docsync.db' : null;
    if (value === null || path.isAbsolute(value)) return [];
    const now = path.resolve(baseDir, value);
    const before = path.resolve(cwd, value);
    if (existsSync(now) || !existsSync(before)) return [];
    return [
      {
        key: `${section}.${key}`,
        message:
          `${JSON.stringify(value)} is relative to the configuration file's folder, where it names ` +
          `nothing (${now}); docsync used to take it from the working directory, where ${before} ` +
          `is: write that absolute path, "${before}", so nothing is started afresh beside it`,
      },
    ];
  });
}

/** The secrets may be missing only because this user cannot read the file that holds them. */
function withUnreadableEnvFile(error: unknown, unreadable: boolean, envFile: string): unknown {
  if (!unreadable || !(error instanceof ConfigError)) return error;
  const secrets = ['service.clientSecret', 'webhook.secret'];
  if (!error.problems.some((p) => secrets.includes(p.key))) return error;
  return new ConfigError(error.source, [
    ...error.problems,
    {
      key: '',
      message: `${envFile} holds docsync's secrets, but ${userInfo().username} may not read it: run the command as the user docsync runs as (\`docsync …\`)`,
    },
  ]);
}

/** "set DOCSYNC_CLIENT_SECRET (in /etc/docsync/acme.env)", not a file of another name. */
function namingEnvFile(problems: ConfigProblem[], envFile: string | undefined): ConfigProblem[] {
  if (envFile === undefined) return problems;
  return problems.map((p) => ({ ...p, message: p.message.replaceAll(ENV_FILE_BESIDE, envFile) }));
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
      message: 'required while the webhook receiver is on: the client code the service signs with',
    });
  }
  if (webhook.secret === undefined) {
    problems.push({
      key: 'webhook.secret',
      message: `required while the webhook receiver is on: set DOCSYNC_WEBHOOK_SECRET (in ${ENV_FILE_BESIDE}; \`docsync init\` makes one)`,
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
