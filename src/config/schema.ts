/**
 * The configuration file of daemon.md, as one zod schema. Defaults live here and nowhere else;
 * objects are strict so a misspelt key is reported instead of silently ignored.
 */
import { validate as isValidCron } from 'node-cron';
import * as z from 'zod';
import { type RouteOverride, routeSettingProblems } from '../remote/routes.js';
import { DEFAULT_UPLOAD_FIELD, isListKey, LIST_KEYS, type ListKey } from '../remote/shapes.js';
import { ENV_FILE_BESIDE } from './config-location.js';
import { DEFAULT_REDIRECT_URI } from './init-plan.js';
import { LOG_LEVELS, type LogLevel } from './log-levels.js';
import { SERVICE_ENVIRONMENT_NAMES } from './service-environments.js';

const httpUrl = z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' });

const nonEmpty = z.string().trim().min(1, { error: 'expected a non-empty string' });

/** A secret: from the file, or from its variable (the environment file beside the file). */
const secret = (variable: string) =>
  z
    .string({
      error: (issue) =>
        issue.input === undefined
          ? `required: set ${variable} (in ${ENV_FILE_BESIDE})`
          : 'expected a non-empty string',
    })
    .trim()
    .min(1, { error: 'expected a non-empty string' });

/** `service.baseUrl` and `service.webUrl`: filled from `service.environment` when it is set. */
const serviceUrl = z.url({
  protocol: /^https?$/,
  error: (issue) =>
    issue.input === undefined
      ? 'required (or set service.environment to "staging" or "production")'
      : 'expected an http(s) URL',
});

/**
 * `service.routes`: corrected paths of the route table (remote/routes.ts), by route name; a
 * route of an owner's documents also takes `{"company": path, "trust": path}`. An unknown name
 * or a path without the route's placeholders is reported with its key at load, not as a 404 in
 * the middle of a sync.
 */
const routeOverrides = z.record(z.string(), z.unknown()).transform((routes, ctx) => {
  // One pass over every entry (a record schema would stop at the first mistyped value).
  for (const [name, value] of Object.entries(routes)) {
    for (const problem of routeSettingProblems(name, value)) {
      ctx.addIssue({
        code: 'custom',
        path: problem.key.split('.'),
        message: problem.message,
        input: value,
      });
    }
  }
  return routes as Record<string, RouteOverride>;
});

/**
 * `service.shapes`: how the service's answers are read where api.md's shapes are ours
 * (remote/shapes.ts). `lists` names, by api.md's key of a list, the key its items are under
 * (`{"companies": "items"}`); `uploadField` the multipart part an upload's file goes in.
 */
const listKeys = z
  .record(z.string(), z.unknown(), {
    error: 'expected an object of list keys, e.g. {"companies": "items"}',
  })
  .transform((lists, ctx) => {
    for (const [key, value] of Object.entries(lists)) {
      if (!isListKey(key)) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `expected a list's key as the contract gives it (${LIST_KEYS.join(', ')}), got "${key}"`,
          input: key,
        });
      } else if (typeof value !== 'string' || value.trim() === '') {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `expected the key the service puts the ${key} under (a non-empty string), got ${JSON.stringify(value)}`,
          input: value,
        });
      }
    }
    return lists as Partial<Record<ListKey, string>>;
  });

const shapes = z.strictObject({
  lists: listKeys.default({}),
  uploadField: z
    .string()
    .regex(/^[!#-~]+$/, {
      error: 'expected a field name: visible ASCII characters, no spaces or quotes',
    })
    .default(DEFAULT_UPLOAD_FIELD),
});

/**
 * `service.scope`: the OAuth scopes to ask for, as a list or as OAuth writes them (separated by
 * spaces). The public pages name `audit`, `investment`, `smsf_partner`, `identity_provider` and
 * `screening_provider`; `cas` is our assumption for the document API (docs/real-service.md).
 */
const scopes = z
  .union([z.string(), z.array(z.string())], {
    error: 'expected a scope, or a list of scopes (e.g. ["cas", "audit"])',
  })
  .transform((value, ctx) => {
    const list = (Array.isArray(value) ? value : [value]).flatMap((s) => s.split(/\s+/));
    const named = [...new Set(list.filter((s) => s !== ''))];
    if (named.length === 0) {
      ctx.addIssue({ code: 'custom', message: 'expected at least one scope', input: value });
      return z.NEVER;
    }
    return named;
  });

/**
 * `service.linkHosts`: the origins download links may come from (scheme, host, port), e.g.
 * `https://files.example.com` or the simulator's `http://127.0.0.1:4011`. A path, a query or a
 * login in one would be ignored by the comparison, so it is refused here rather than trusted.
 */
const linkOrigin = z.string().transform((value, ctx) => {
  const expected = 'expected an origin: http(s)://host[:port], with no path';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    ctx.addIssue({ code: 'custom', message: `${expected}, got ${JSON.stringify(value)}` });
    return z.NEVER;
  }
  const bare = url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password;
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || !bare) {
    ctx.addIssue({ code: 'custom', message: `${expected}, got ${JSON.stringify(value)}` });
    return z.NEVER;
  }
  return url.origin;
});

/** `host:port` (IPv6 hosts in brackets), parsed once here into its parts. */
const listenAddress = z
  .string()
  .regex(/^(\[[0-9a-fA-F:.]+\]|[^:\s]+):(\d{1,5})$/, { error: 'expected host:port' })
  .transform((value, ctx) => {
    const at = value.lastIndexOf(':');
    const port = Number(value.slice(at + 1));
    if (port > 65_535) {
      ctx.addIssue({ code: 'custom', message: `expected a port from 0 to 65535, got ${port}` });
      return z.NEVER;
    }
    return { host: value.slice(0, at).replace(/^\[|\]$/g, ''), port };
  });

const cronExpression = z.string().refine((value) => isValidCron(value), {
  error: 'expected a cron expression such as "*/5 * * * *"',
});

const positiveInt = z
  .number()
  .int({ error: 'expected an integer from 1 and up' })
  .min(1, { error: 'expected an integer from 1 and up' });

const percent = z.number().min(0, { error: 'expected a percentage from 0 to 100' }).max(100, {
  error: 'expected a percentage from 0 to 100',
});

/** pino's levels, quietest last; `log.level` and `--log-level` take one. */
export { LOG_LEVELS, type LogLevel };

export const configSchema = z.strictObject({
  service: z.strictObject({
    /** Fills `baseUrl` and `webUrl` with the environment's known URLs (service-environments.ts). */
    environment: z.enum(SERVICE_ENVIRONMENT_NAMES).optional(),
    baseUrl: serviceUrl,
    webUrl: serviceUrl,
    clientId: nonEmpty,
    clientSecret: secret('DOCSYNC_CLIENT_SECRET'),
    scope: scopes.default(['cas']),
    /** How the client authenticates at the token endpoint (remote/token-manager.ts). */
    clientAuth: z
      .enum(['client_secret_basic', 'client_secret_post'])
      .default('client_secret_basic'),
    redirectUri: httpUrl.default(DEFAULT_REDIRECT_URI),
    routes: routeOverrides.default({}),
    shapes: shapes.prefault({}),
    /**
     * The only origins download links are fetched from, when set; unset, any https host that
     * resolves to a public address (remote/link-rules.ts).
     */
    linkHosts: z
      .array(linkOrigin)
      .min(1, { error: 'expected at least one origin; leave the key out to allow any https host' })
      .optional(),
    /** Seeds the stored refresh token (normally from DOCSYNC_REFRESH_TOKEN), for automation. */
    refreshToken: nonEmpty.optional(),
  }),
  store: z.strictObject({
    root: nonEmpty,
  }),
  state: z
    .strictObject({
      path: nonEmpty.default('state/docsync.db'),
    })
    .prefault({}),
  schedule: z
    .strictObject({
      cron: cronExpression.default('*/5 * * * *'),
      fullReconcileCron: cronExpression.default('30 2 * * *'),
      /**
       * The most of `queue.requestsPerSecond` polling may use, for a grant shared with other
       * tools; polling only ever takes what the other lanes leave idle.
       */
      maxPollShare: z
        .number()
        .gt(0, { error: 'expected a share above 0' })
        .max(1, { error: 'expected a share of at most 1' })
        .default(1),
      /**
       * The part of `queue.requestsPerSecond` the sweep of the firm's unlodged list takes, out
       * of polling's (daemon/unlodged-sweep.ts); 0 turns the sweep off.
       */
      unlodgedSweepShare: z
        .number()
        .min(0, { error: 'expected a share from 0 (off) to 0.5' })
        .max(0.5, { error: 'expected a share from 0 (off) to 0.5' })
        .default(0.05),
      /**
       * The least time from one sweep of the unlodged list to the next: a small firm's list,
       * one page, is read this often rather than at every interval the share allows (0: a
       * sweep follows the last at the share's pace).
       */
      unlodgedSweepSeconds: z
        .number()
        .min(0, { error: 'expected seconds from 0 to 86400' })
        .max(86_400, { error: 'expected seconds from 0 to 86400' })
        .default(30),
    })
    .superRefine((schedule, ctx) => {
      // Polling keeps at least half of its share: the round is what guarantees coverage.
      if (schedule.unlodgedSweepShare > schedule.maxPollShare / 2) {
        ctx.addIssue({
          code: 'custom',
          path: ['unlodgedSweepShare'],
          message: `expected at most half of schedule.maxPollShare (${schedule.maxPollShare / 2}), got ${schedule.unlodgedSweepShare}`,
          input: schedule.unlodgedSweepShare,
        });
      }
    })
    .prefault({}),
  queue: z
    .strictObject({
      requestsPerSecond: z.number().positive({ error: 'expected a number above 0' }).default(10),
      concurrency: positiveInt.default(4),
    })
    .prefault({}),
  webhook: z
    .strictObject({
      enabled: z.boolean().default(true),
      listen: listenAddress.prefault('127.0.0.1:8787'),
      path: z
        .string()
        .startsWith('/', { error: 'expected a path starting with /' })
        .default('/webhooks/document-change'),
      clientCode: nonEmpty.optional(),
      secret: nonEmpty.optional(),
      allowUnsigned: z.boolean().default(false),
      resourceUrlTemplate: z.string().optional(),
      /**
       * The URL registered with the service, when docsync sits behind a proxy: the signature
       * covers the URL the service posted to, which the receiver cannot see from behind it.
       */
      publicUrl: httpUrl.optional(),
    })
    .prefault({}),
  status: z
    .strictObject({
      enabled: z.boolean().default(true),
      listen: listenAddress.prefault('127.0.0.1:8788'),
      /**
       * How the firm's browsers reach the status listener (through a proxy or the LAN): the
       * webhook answers then carry stable document links there (`/documents/{id}`), and the
       * page and its actions answer at its host and origin (web/csrf.ts).
       */
      publicUrl: httpUrl.optional(),
      /** `/healthz` fails when the last good cycle is older; default 3 cron intervals or 30 min. */
      healthMaxAgeSeconds: positiveInt.optional(),
    })
    .prefault({}),
  settleSeconds: z
    .number()
    .min(0, { error: 'expected seconds from 0 to 3600' })
    .max(3600, { error: 'expected seconds from 0 to 3600' })
    .default(3),
  ignore: z.array(nonEmpty).default([]),
  watcher: z
    .strictObject({
      /**
       * Every entity folder is checked at least this often, whatever the OS's change events say
       * (none come for other machines' writes on a network share): a scan costs no API request.
       */
      scanIntervalSeconds: positiveInt.default(300),
    })
    .prefault({}),
  onRemoteDelete: z.enum(['trash', 'delete']).default('trash'),
  safety: z
    .strictObject({
      maxDeletePercent: percent.default(50),
      maxDeleteCount: z
        .number()
        .int({ error: 'expected an integer from 0 and up' })
        .min(0, { error: 'expected an integer from 0 and up' })
        .default(100),
      /**
       * Under the daemon, how long a removed document folder waits before its delete in the
       * service counts: a burst of removals is seen whole and judged together, and a folder put
       * back meanwhile deletes nothing. 0: no hold. `--once` judges the whole store at once.
       */
      deleteHoldSeconds: z
        .number()
        .min(0, { error: 'expected seconds from 0 to 86400' })
        .max(86_400, { error: 'expected seconds from 0 to 86400' })
        .default(60),
    })
    .prefault({}),
  log: z
    .strictObject({
      level: z.enum(LOG_LEVELS).default('info'),
    })
    .prefault({}),
});

/**
 * The keys the schema knows in the object at `path` (`[]`: the top, `['service']`), for "did you
 * mean" beside an unknown key; none where the path leads to no object of fixed keys.
 */
export function configKeysAt(path: readonly PropertyKey[]): string[] {
  let schema: z.core.$ZodType | undefined = configSchema;
  for (const step of path) {
    const shape = objectShape(schema);
    schema = shape && typeof step === 'string' ? shape[step] : undefined;
    if (schema === undefined) return [];
  }
  return Object.keys(objectShape(schema) ?? {});
}

/** The keys of an object schema, through the defaults, optionals and pipes wrapped round it. */
function objectShape(schema: z.core.$ZodType): Record<string, z.core.$ZodType> | null {
  let at: z.core.$ZodType | undefined = schema;
  while (at !== undefined) {
    if (at instanceof z.ZodObject) return at.shape;
    const def = at._zod.def as { innerType?: z.core.$ZodType; in?: z.core.$ZodType };
    at = def.innerType ?? def.in;
  }
  return null;
}

/** The scopes as OAuth sends them: one string, separated by spaces (RFC 6749 3.3). */
export function oauthScope(scopes: readonly string[]): string {
  return scopes.join(' ');
}

export type ConfigInput = z.input<typeof configSchema>;
export type Config = DeepReadonly<z.output<typeof configSchema>>;

export type DeepReadonly<T> = T extends (infer U)[]
  ? readonly DeepReadonly<U>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;
