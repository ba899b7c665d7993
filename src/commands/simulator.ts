/**
 * `docsync simulator`: runs the built-in simulator of the compliance service until SIGINT or
 * SIGTERM, and prints what a docsync needs to talk to it (URLs, client, a refresh token, a
 * config snippet), so a demo or a benchmark needs no browser.
 */
import { DEFAULT_SIMULATOR_URL } from '../config/init-plan.js';
import { DocsyncError } from '../domain/errors.js';
import {
  isRateMode,
  isSimProfile,
  RATE_MODES,
  type RateMode,
  type SeedOption,
  SIM_PROFILES,
  type SimProfile,
  type Simulator,
  type SimulatorOptions,
  startSimulator,
} from '../simulator/index.js';
import { selfOn } from './self-command.js';
import type { Terminal } from './terminal.js';

export interface SimulatorCommandOptions {
  readonly port?: string;
  readonly linkPort?: string;
  readonly host?: string;
  readonly seed?: string;
  readonly rateLimit?: string;
  /** How the limit is counted: `sliding`, `calendar`, `bucket`, or several joined by commas. */
  readonly rateMode?: string;
  readonly rateBurst?: string;
  readonly arrivalJitter?: string;
  readonly webhookUrl?: string;
  readonly webhookSecret?: string;
  readonly clientCode?: string;
  /** `api` (api.md) or `public-docs` (the public pages where they differ; simulator/profile.ts). */
  readonly profile?: string;
}

export async function runSimulator(
  options: SimulatorCommandOptions,
  terminal: Terminal,
): Promise<void> {
  const sim = await startSimulator(toSimulatorOptions(options));
  const refreshToken = sim.admin.mintRefreshToken();
  const summary = (await sim.admin.dump()).documents.length;
  const where = sim.apiUrl === DEFAULT_SIMULATOR_URL ? '' : ` --simulator-url ${sim.apiUrl}`;
  const out = [
    'docsync simulator of the compliance service is running.',
    `  API:           ${sim.apiUrl}   (admin API under ${sim.apiUrl}/_admin)`,
    `  Links:         ${sim.linkUrl}`,
    `  Web (links):   ${sim.webUrl}`,
    `  Client:        ${sim.clientId} / ${sim.clientSecret}`,
    `  Refresh token: ${refreshToken}`,
    `  Documents:     ${summary}`,
    `  Rate limit:    ${rateLine(sim.admin.rateSettings())}`,
    `  Profile:       ${options.profile ?? 'api'}${options.profile === 'public-docs' ? " (the public pages' shapes and paths where they differ from docs/api-contract.md)" : ''}`,
    '',
    'Write a configuration of docsync for it (in another terminal, in the folder to keep',
    "docsync's config/ in), then run what that prints next:",
    `  ${selfOn(terminal)} init --for simulator${where}`,
    '',
    'Press Ctrl+C to stop.',
  ];
  terminal.stdout.write(`${out.join('\n')}\n`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await sim.close();
  terminal.stdout.write('Simulator stopped.\n');
}

export function toSimulatorOptions(options: SimulatorCommandOptions): SimulatorOptions {
  const webhook = options.webhookUrl
    ? {
        url: options.webhookUrl,
        clientCode: options.clientCode ?? 'DOCSYNC',
        secret: options.webhookSecret ?? 'simulator-webhook-secret',
      }
    : undefined;
  const apiPort = port(options.port ?? '4010', '--port');
  return {
    port: apiPort,
    // The port after the API's, so a configuration `docsync init` wrote (which lists the link
    // host in service.linkHosts) still works when the simulator is started again.
    linkPort: port(
      options.linkPort ?? String(apiPort === 0 || apiPort === 65_535 ? 0 : apiPort + 1),
      '--link-port',
    ),
    ...(options.host ? { host: options.host } : {}),
    ...(options.seed ? { seed: parseSeed(options.seed) } : {}),
    ...(options.rateLimit !== undefined
      ? { rateLimitPerSecond: count(options.rateLimit, '--rate-limit') }
      : {}),
    ...(options.rateMode !== undefined ? { rateModes: rateModesOf(options.rateMode) } : {}),
    ...(options.rateBurst !== undefined
      ? { rateBurst: positive(options.rateBurst, '--rate-burst') }
      : {}),
    ...(options.arrivalJitter !== undefined
      ? { arrivalJitterMs: count(options.arrivalJitter, '--arrival-jitter') }
      : {}),
    ...(webhook ? { webhook } : {}),
    ...(options.profile !== undefined ? { profile: profileOf(options.profile) } : {}),
  };
}

/** The limit as the printout says it: what docsync is not told, it finds from the 429s. */
function rateLine(rate: ReturnType<Simulator['admin']['rateSettings']>): string {
  if (!(rate.perSecond > 0) || !Number.isFinite(rate.perSecond)) return 'none';
  const bucket = rate.modes.includes('bucket') ? `, burst ${rate.burst}` : '';
  const jitter =
    rate.arrivalJitterMs > 0 ? `, arrival jitter up to ${rate.arrivalJitterMs} ms` : '';
  return `${rate.perSecond} requests/s per token, counted ${rate.modes.join(' and ')}${bucket}${jitter}`;
}

/** `sliding`, `calendar`, `bucket`, or several of them joined by commas. */
function rateModesOf(text: string): RateMode[] {
  const modes = text.split(',').map((m) => m.trim());
  const wrong = modes.filter((m) => !isRateMode(m));
  if (wrong.length > 0 || modes.length === 0)
    throw usage(
      `--rate-mode expects ${RATE_MODES.join(', ')}, or several joined by commas, got "${text}"`,
    );
  return modes as RateMode[];
}

function positive(text: string, flag: string): number {
  const value = count(text, flag);
  if (value === 0) throw usage(`${flag} must be 1 or more, got "${text}"`);
  return value;
}

function profileOf(text: string): SimProfile {
  if (isSimProfile(text)) return text;
  throw usage(`--profile expects one of ${SIM_PROFILES.join(', ')}, got "${text}"`);
}

/** `demo`, or a number of documents spread 100 per entity over companies and trusts. */
export function parseSeed(text: string): SeedOption {
  if (text === 'demo') return 'demo';
  const documents = count(text, '--seed');
  const perEntity = Math.max(1, Math.min(100, documents));
  const entities = Math.max(1, Math.ceil(documents / perEntity));
  return {
    companies: Math.ceil(entities / 2),
    trusts: Math.floor(entities / 2),
    documentsPerEntity: documents === 0 ? 0 : perEntity,
    attachmentsPerDocument: 2,
    attachmentBytes: 4096,
    seed: 42,
  };
}

function port(text: string, flag: string): number {
  const value = count(text, flag);
  if (value > 65535) throw usage(`${flag} must be a port from 0 to 65535, got "${text}"`);
  return value;
}

function count(text: string, flag: string): number {
  if (!/^\d+$/.test(text))
    throw usage(
      `${flag} expects a whole number${flag === '--seed' ? ' or "demo"' : ''}, got "${text}"`,
    );
  return Number(text);
}

function usage(message: string): DocsyncError {
  return new DocsyncError('USAGE', message);
}
