/**
 * The admin API over HTTP, for out-of-process users (CLI, benchmarks, chaos tests). No auth,
 * no faults, no rate limit, no counting: it is a test tool, never part of the contract.
 * Each route calls the in-process admin object, so both stay identical.
 */
import type { SimulatorAdmin } from './admin.js';
import { type Reply, type RequestContext, type Route, readJson } from './http-kit.js';
import { isRateMode, RATE_MODES, type RateMode } from './rate-limit.js';
import { badRequest } from './sim-error.js';

type Handler = (ctx: RequestContext, body: Record<string, unknown>) => unknown;

export function adminRoutes(admin: SimulatorAdmin): Route[] {
  const route = (method: string, template: string, handler: Handler, status = 200): Route => ({
    method,
    template: `/_admin${template}`,
    auth: false,
    handle: async (ctx): Promise<Reply> => {
      const body = method === 'POST' || method === 'PUT' ? await readJson(ctx.req) : {};
      const result = await handler(ctx, body);
      return result === undefined ? { status: 204 } : { status, body: result };
    },
  });
  const doc = (ctx: RequestContext) => ctx.params.documentId!;
  return [
    route('POST', '/seed', (_, body) => admin.seed(body.demo === true ? 'demo' : body), 201),
    route('POST', '/companies', (_, body) => admin.createCompany(body as never), 201),
    route('POST', '/trusts', (_, body) => admin.createTrust(body as never), 201),
    route('POST', '/documents', (_, body) => admin.createDocument(body as never), 201),
    route(
      'POST',
      '/documents/{documentId}/statuses',
      (ctx, body) => admin.assignStatus(doc(ctx), body as never),
      201,
    ),
    route(
      'POST',
      '/documents/{documentId}/attachments',
      (ctx, body) => admin.addAttachment(doc(ctx), attachmentInput(body)),
      201,
    ),
    route('DELETE', '/documents/{documentId}/attachments/{attachmentId}', (ctx) =>
      admin.deleteAttachment(doc(ctx), ctx.params.attachmentId!),
    ),
    route('DELETE', '/documents/{documentId}', (ctx) => admin.deleteDocument(doc(ctx))),
    route('GET', '/state', () => admin.dump()),
    route('GET', '/counters', () => admin.counters()),
    route('DELETE', '/counters', () => admin.resetCounters()),
    route(
      'POST',
      '/refresh-tokens',
      (_, body) => ({
        refreshToken: admin.mintRefreshToken(
          optionalString(body.clientId),
          optionalString(body.scope),
        ),
      }),
      201,
    ),
    route('GET', '/faults', () => admin.faults()),
    route('POST', '/holds', (_, body) =>
      admin.holdAnswers({
        method: requiredString(body.method, 'method'),
        template: requiredString(body.template, 'template'),
      }),
    ),
    route('GET', '/holds', () => ({ held: admin.heldAnswers() })),
    route('DELETE', '/holds', () => admin.releaseAnswers()),
    route('PUT', '/faults', (_, body) => admin.setFaults(body)),
    route('GET', '/shapes', () => admin.shapes()),
    route('PUT', '/shapes', (_, body) => admin.setShapes(body)),
    route('PUT', '/rate-limit', (_, body) =>
      admin.setRateLimit(number(body.perSecond, 'perSecond'), {
        ...optional('modes', rateModes(body.modes)),
        ...optional('burst', body.burst === undefined ? undefined : number(body.burst, 'burst')),
        ...optional(
          'arrivalJitterMs',
          body.arrivalJitterMs === undefined
            ? undefined
            : number(body.arrivalJitterMs, 'arrivalJitterMs'),
        ),
      }),
    ),
    route('GET', '/links', () => admin.links()),
    route('PUT', '/links', (_, body) => admin.setLinks(linkSettings(body))),
    route('PUT', '/clock', (_, body) => admin.setClockOffset(number(body.offsetMs, 'offsetMs'))),
    route('PUT', '/webhook', (_, body) => admin.setWebhook(body as never)),
    route('DELETE', '/webhook', () => admin.setWebhook(null)),
    route('GET', '/webhook/deliveries', () => admin.webhookDeliveries()),
    webPage,
  ];
}

/**
 * The deep links of api.md point at `{webUrl}/s/html/main.html#/...`; the fragment never
 * reaches a server, so one page stands in for the service's web application.
 */
const webPage: Route = {
  method: 'GET',
  template: '/web/s/html/main.html',
  auth: false,
  handle: ({ res }) => {
    const html =
      '<!doctype html><title>Compliance service (simulator)</title><h1>Compliance service (simulator)</h1><p id="where"></p><script>where.textContent = location.hash</script>';
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(html);
    return null;
  },
};

/** Bytes travel as base64 in JSON: `{name, contentBase64, system?}`. */
function attachmentInput(body: Record<string, unknown>) {
  if (typeof body.name !== 'string' || typeof body.contentBase64 !== 'string') {
    throw badRequest('name and contentBase64 are required');
  }
  return {
    name: body.name,
    bytes: Buffer.from(body.contentBase64, 'base64'),
    system: body.system === true,
  };
}

/** `{linkUrl?, redirectTo?}`: each a URL, or null for the link host's own. */
function linkSettings(body: Record<string, unknown>) {
  const settings: { linkUrl?: string | null; redirectTo?: string | null } = {};
  for (const key of ['linkUrl', 'redirectTo'] as const) {
    const value = body[key];
    if (value === undefined) continue;
    if (value !== null && typeof value !== 'string')
      throw badRequest(`${key} must be a URL or null`);
    settings[key] = value;
  }
  return settings;
}

function number(value: unknown, name: string): number {
  if (typeof value !== 'number' || Number.isNaN(value))
    throw badRequest(`${name} must be a number`);
  return value;
}

/** `modes`: absent for a sliding and a calendar second, else a list of RATE_MODES. */
function rateModes(value: unknown): readonly RateMode[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length === 0 || !value.every((m) => isRateMode(String(m))))
    throw badRequest(`modes must be a list of ${RATE_MODES.join(', ')}`);
  return value as RateMode[];
}

/** `{ key: value }`, or nothing when the value is absent. */
function optional<K extends string, V>(key: K, value: V | undefined): { [k in K]?: V } {
  return value === undefined ? {} : ({ [key]: value } as { [k in K]: V });
}

function requiredString(value: unknown, name: string): string {
  if (typeof value !== 'string' || value === '') throw badRequest(`${name} must be a string`);
  return value;
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
