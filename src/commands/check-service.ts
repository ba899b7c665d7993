/**
 * `docsync check` on the state database and the service: the stored login, an access token
 * (refreshed only when the stored one is no longer good, as any run would), every route that
 * reads, and the service's clock. The state database is opened as it is: a missing one is never
 * created, an older one never migrated.
 */
import type { Got } from 'got';
import { clientOptions } from '../compose.js';
import { type Config, oauthScope } from '../config/schema.js';
import { type CheckLine, fail, ok, untried, warn } from '../domain/check-lines.js';
import { REAL_CLOCK } from '../domain/clock.js';
import { entityDeepLink } from '../domain/deep-links.js';
import { DocsyncError, StateSchemaError } from '../domain/errors.js';
import { otherService, serviceKey } from '../domain/service-identity.js';
import { ApiError, AuthRequiredError } from '../remote/api-error.js';
import { USER_AGENT } from '../remote/api-wire.js';
import { createRemote, type Remote } from '../remote/create-client.js';
import { probeRoutes } from '../remote/probe-routes.js';
import { routeTable } from '../remote/routes.js';
import { serviceAdvice } from '../remote/service-advice.js';
import type { ResponseInfo } from '../remote/service-http.js';
import type { Transcript } from '../remote/transcript.js';
import { schemaVersion } from '../state/open-database.js';
import { StateStore } from '../state/state-store.js';
import { MAX_DATE_SKEW_MS } from '../triggers/verify-signature.js';

/** A check reports what the service answered once; no retries to hide a failing route. */
const ONE_ATTEMPT = { maxAttempts: 1, baseDelayMs: 0, maxDelayMs: 0 };
/** Below this the clocks agree as well as a `Date` header (whole seconds) can tell. */
const SKEW_OK_MS = 60_000;

export interface ServiceCheck {
  readonly lines: CheckLine[];
  /** From the state database; null when there is none to ask (the store check needs it). */
  readonly initialSyncDone: boolean | null;
}

export async function checkService(config: Config, transcript?: Transcript): Promise<ServiceCheck> {
  const opened = openForCheck(config);
  if (!('state' in opened)) return { lines: opened.lines, initialSyncDone: null };
  try {
    return await withState(config, opened.state, opened.created, transcript);
  } finally {
    opened.state.close();
  }
}

/**
 * The state database as it is: an older one is never migrated (open-database.ts). A missing one
 * is what a store looks like before its first run: a note. It is created only to keep a login
 * given in DOCSYNC_REFRESH_TOKEN, as `docsync auth login` would: the service replaces a refresh
 * token when it is used, so one used by the check and then forgotten would leave the first run
 * with a dead token.
 */
function openForCheck(
  config: Config,
): { state: StateStore; created: boolean } | { lines: CheckLine[] } {
  const file = config.state.path;
  try {
    return { state: StateStore.open(file, { existing: true }), created: false };
  } catch (error) {
    if (!(error instanceof DocsyncError)) throw error;
    if (error.code !== 'STATE_MISSING') return { lines: [unusableState(error)] };
    if (!config.service.refreshToken) return { lines: noStateNoLogin(file) };
  }
  try {
    return { state: StateStore.open(file, { upgrade: false }), created: true };
  } catch (error) {
    if (!(error instanceof DocsyncError)) throw error;
    return { lines: [unusableState(error)] };
  }
}

function noStateNoLogin(file: string): CheckLine[] {
  return [
    ok(
      'state database',
      `${file} does not exist yet; the first run (or \`docsync auth login\`) makes it`,
      {
        exists: false,
      },
    ),
    fail(
      'token',
      'no login: there is no state database to hold one, and DOCSYNC_REFRESH_TOKEN is not set',
      'Run `docsync auth login` (it makes the database and stores the login), or set DOCSYNC_REFRESH_TOKEN (in the environment file beside the configuration); then check again.',
    ),
  ];
}

/** The state database cannot be opened as it is: what that means for the checks after it. */
function unusableState(error: DocsyncError): CheckLine {
  if (error instanceof StateSchemaError && error.code === 'STATE_TOO_OLD') {
    return warn(
      'state database',
      `${error.file} has schema version ${error.version}; this docsync upgrades it to ${error.known} when it runs, so the check leaves it, the token and the routes alone`,
      'Stop the old daemon and start this version (`systemctl restart docsync`), then run `docsync check` again.',
    );
  }
  if (error instanceof StateSchemaError) {
    return fail(
      'state database',
      `${error.file} has schema version ${error.version}; this docsync knows up to ${error.known}`,
      'It was written by a newer docsync: run that version.',
    );
  }
  return fail(
    'state database',
    error.message,
    'See the message; docsync cannot run until it is fixed.',
  );
}

async function withState(
  config: Config,
  state: StateStore,
  created: boolean,
  transcript: Transcript | undefined,
): Promise<ServiceCheck> {
  const file = config.state.path;
  const lines = [stateLine(file, schemaVersion(state.db), created)];
  const service = serviceLine(config, state);
  lines.push(service.line);
  // Another service's login is not sent to this one: nothing after this can be checked.
  if (!service.same) return { lines, initialSyncDone: state.settings.initialSyncDone() };
  // As every command does: a refresh token given in the environment is the one to use.
  if (config.service.refreshToken) state.tokens.seedRefreshToken(config.service.refreshToken);
  let last: ResponseInfo | undefined;
  let answered = false;
  // Whatever login the state holds is a secret of the transcript, before any request is made.
  const stored = state.tokens.read();
  transcript?.secret(stored?.accessToken);
  transcript?.secret(stored?.refreshToken);
  const remote = createRemote({
    transcript,
    ...clientOptions(config),
    time: REAL_CLOCK,
    tokenStore: state.tokens,
    // A document list that answers 404 finds its prefix here as the first run would, and the
    // prefix found is kept for the run (remote/document-prefixes.ts).
    prefixStore: state.settings,
    retry: ONE_ATTEMPT,
    timeoutMs: 15_000,
    onResponse: (info) => {
      last = info;
      if (info.status !== 'network') answered = true;
    },
  });
  try {
    const token = await tokenLines(config, remote, state);
    lines.push(...token.lines);
    if (token.ok) {
      const { service } = config;
      lines.push(
        ...(await probeRoutes({
          http: remote.http,
          lastAnswer: () => last,
          ...service,
          scope: oauthScope(service.scope),
          granted: token.granted,
          got: remote.got,
          links: remote.links,
        })),
      );
      lines.push(clockLine(config, remote, answered));
      lines.push(await webLine(config.service.webUrl, remote.got));
    }
  } finally {
    remote.queue.clear();
  }
  return { lines, initialSyncDone: state.settings.initialSyncDone() };
}

function stateLine(file: string, version: number, created: boolean): CheckLine {
  if (!created) return ok('state database', `${file} (schema ${version})`, { exists: true });
  return ok(
    'state database',
    `${file} did not exist: made it to keep the login DOCSYNC_REFRESH_TOKEN gives (the service replaces a refresh token when it is used, so the new one must be kept); the first run syncs into it`,
    { exists: true, created: true },
  );
}

/** The service the state was synced with (domain/service-identity.ts) against the configured one. */
function serviceLine(config: Config, state: StateStore): { line: CheckLine; same: boolean } {
  const file = config.state.path;
  const recorded = state.settings.serviceUrl();
  const configured = serviceKey(config.service.baseUrl);
  const data = { recorded, configured };
  if (otherService({ kind: 'state', statePath: file }, recorded, configured)) {
    return {
      same: false,
      line: fail(
        'state service',
        `${file} was synced with ${recorded}, not with ${configured}; docsync refuses to run on it, and the login in it is not sent to ${configured} to check the token and the routes`,
        `Set service.environment (or service.baseUrl) back to ${recorded}, or give ${configured} its own state.path and store.root (docs/real-service.md, "A state of another service").`,
        data,
      ),
    };
  }
  if (recorded !== null)
    return { same: true, line: ok('state service', `synced with ${recorded}`, data) };
  if (!state.settings.initialSyncDone()) {
    return {
      same: true,
      line: ok('state service', `not synced yet; the first run records ${configured}`, data),
    };
  }
  return {
    same: true,
    line: warn(
      'state service',
      `${file} was synced by an older docsync, which recorded no service; the next run records ${configured} as the one it is synced with`,
      `Make sure this state was synced with ${configured} before docsync runs on it; if it was another service's, give ${configured} its own state.path and store.root.`,
      data,
    ),
  };
}

async function tokenLines(
  config: Config,
  remote: Remote,
  state: StateStore,
): Promise<{ ok: boolean; lines: CheckLine[]; granted?: readonly string[] | null }> {
  const before = state.tokens.read();
  if (!before) {
    return {
      ok: false,
      lines: [
        fail(
          'token',
          `no login is stored in ${config.state.path}`,
          'Run `docsync auth login` (or set DOCSYNC_REFRESH_TOKEN).',
        ),
      ],
    };
  }
  try {
    await remote.tokens.accessToken();
  } catch (error) {
    if (error instanceof AuthRequiredError)
      return { ok: false, lines: [fail('token', error.reason, error.hint)] };
    if (error instanceof ApiError) {
      const route = { name: 'token' as const, route: routeTable(config.service.routes).token };
      const hint =
        serviceAdvice(error, { baseUrl: config.service.baseUrl, route }) ??
        'The service refused the token request; its message says why.';
      return {
        ok: false,
        lines: [fail('token', `the token request failed: ${error.message}`, hint)],
      };
    }
    throw error;
  }
  const after = state.tokens.read()!;
  const until = after.accessTokenExpiresAt
    ? new Date(after.accessTokenExpiresAt).toISOString()
    : 'an unknown time';
  const refreshed = after.accessToken !== before.accessToken;
  const lines = [
    ok(
      'token',
      refreshed
        ? `refreshed: a new access token, valid until ${until} (the rotated refresh token is stored)`
        : `the stored access token is valid until ${until}`,
      { refreshed, expiresAt: after.accessTokenExpiresAt, scope: after.scope },
    ),
  ];
  const granted = after.scope ? after.scope.split(/\s+/).filter((s) => s !== '') : null;
  lines.push(scopeLine(config.service.scope, granted));
  return { ok: true, lines, granted };
}

/** The scopes asked for against the scopes granted, as sets: order and spacing do not matter. */
function scopeLine(asked: readonly string[], granted: readonly string[] | null): CheckLine {
  const quoted = (list: readonly string[]) => list.map((s) => `"${s}"`).join(', ');
  const data = { asked, granted };
  if (granted === null) {
    return untried(
      'token scope',
      `the service did not say which scopes it granted; docsync asks for ${quoted(asked)}`,
      undefined,
      data,
    );
  }
  const missing = asked.filter((s) => !granted.includes(s));
  if (missing.length === 0) {
    return ok('token scope', `granted ${quoted(granted)}, every scope docsync asks for`, data);
  }
  return warn(
    'token scope',
    `the service granted ${quoted(granted)}; docsync asks for ${quoted(asked)}, so ${quoted(missing)} ${missing.length === 1 ? 'is' : 'are'} not granted`,
    'Set service.scope to the scopes the application is approved for (a list), then run `docsync auth login`.' +
      (missing.includes('cas')
        ? ' "cas" is docsync\'s assumption: the public pages name audit, investment, smsf_partner, identity_provider and screening_provider.'
        : ''),
    data,
  );
}

/**
 * The web application the deep links open (`.entity.json`, the shortcut, `docsync open`). Its
 * URL is our assumption for the known environments ([ours]), so it is opened once; the part
 * after `#` never reaches the server, so any entity's link would ask for this same page.
 */
async function webLine(webUrl: string, client: Got): Promise<CheckLine> {
  const page = entityDeepLink(webUrl, { kind: 'company', id: 'check' }).replace(/#.*$/, '');
  const hint =
    'Deep links in .entity.json and the shortcuts point there: set service.webUrl to the address users open the service at.';
  try {
    const { statusCode } = await client(page, {
      headers: { 'user-agent': USER_AGENT },
      followRedirect: false,
      throwHttpErrors: false,
      retry: { limit: 0 },
      timeout: { request: 15_000 },
    });
    if (statusCode < 400)
      return ok('web application', `${page} answered ${statusCode}`, {
        url: page,
        status: statusCode,
      });
    return warn('web application', `${page} answered ${statusCode}`, hint, {
      url: page,
      status: statusCode,
    });
  } catch (error) {
    return warn(
      'web application',
      `${page} cannot be reached (${(error as Error).message})`,
      hint,
      { url: page, status: 'network' },
    );
  }
}

/** The service's clock against ours, from the `Date` headers of the answers just received. */
function clockLine(config: Config, remote: Remote, answered: boolean): CheckLine {
  if (!answered) {
    return warn(
      'clock',
      'not checked: the service gave no answer to read its clock from',
      'See the failures above.',
    );
  }
  if (!remote.clock.observed) {
    return warn(
      'clock',
      'the service sent no Date header',
      'docsync cannot correct for a difference between the clocks; keep this machine on NTP.',
    );
  }
  const skewMs = remote.clock.offsetMs;
  const seconds = Math.round(Math.abs(skewMs) / 100) / 10;
  const side = skewMs >= 0 ? 'ahead of' : 'behind';
  const text = `the service's clock is ${seconds} s ${side} this machine's`;
  const data = { skewMs: Math.round(skewMs) };
  if (Math.abs(skewMs) < SKEW_OK_MS) return ok('clock', text, data);
  const signed = config.webhook.enabled && !config.webhook.allowUnsigned;
  if (Math.abs(skewMs) >= MAX_DATE_SKEW_MS && signed) {
    return fail(
      'clock',
      `${text}: every signed webhook would be refused as stale (5 minutes allowed)`,
      "Set this machine's clock right (timedatectl set-ntp true); tell the service provider if theirs is wrong.",
      data,
    );
  }
  return warn(
    'clock',
    `${text}; docsync corrects change times for it`,
    "A skew this large means a clock is not synchronised: set this machine's right (timedatectl set-ntp true).",
    data,
  );
}
