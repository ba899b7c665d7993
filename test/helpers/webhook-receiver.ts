/**
 * A webhook receiver per test on port 0 with its own SQLite file, closed afterwards, and a
 * sender that signs exactly as the simulator does (its own `signWebhook`).
 */
import { randomUUID } from 'node:crypto';
import { afterEach } from 'vitest';
import type { Config } from '../../src/config/schema.js';
import { createLogger } from '../../src/log/create-logger.js';
import { signWebhook } from '../../src/simulator/index.js';
import type { StateStore } from '../../src/state/state-store.js';
import type { DocumentChangeEvent } from '../../src/triggers/webhook-event.js';
import {
  startWebhookReceiver,
  type WebhookReceiver,
  type WebhookReceiverOptions,
} from '../../src/triggers/webhook-receiver.js';
import { Metrics } from '../../src/web/metrics.js';

export const CLIENT_CODE = 'DOCSYNC';
export const SECRET = 'hook-s3cret';
export const HOOK_PATH = '/webhooks/document-change';

export const silentLogger = () => createLogger({ level: 'silent', pretty: false });

export function webhookConfig(overrides: Partial<Config['webhook']> = {}): Pick<Config, 'webhook'> {
  return {
    webhook: {
      enabled: true,
      listen: { host: '127.0.0.1', port: 0 },
      path: HOOK_PATH,
      clientCode: CLIENT_CODE,
      secret: SECRET,
      allowUnsigned: false,
      ...overrides,
    },
  };
}

export interface ReceiverFixture {
  readonly receiver: WebhookReceiver;
  readonly seen: DocumentChangeEvent[];
  readonly metrics: Metrics;
}

type StartOptions = Partial<Omit<WebhookReceiverOptions, 'config' | 'state'>> & {
  readonly webhook?: Partial<Config['webhook']>;
  /** `service.webUrl` and `status.publicUrl`, which shape the answer's `resourceUrl`. */
  readonly links?: Omit<WebhookReceiverOptions['config'], 'webhook'>;
};

export function useWebhookReceivers(): (
  state: StateStore,
  options?: StartOptions,
) => Promise<ReceiverFixture> {
  const started: WebhookReceiver[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((r) => r.close()));
  });
  return async (state, options = {}) => {
    const seen: DocumentChangeEvent[] = [];
    const metrics = options.metrics ?? new Metrics();
    const { webhook, links, ...rest } = options;
    const receiver = await startWebhookReceiver({
      logger: silentLogger(),
      onEvent: (event) => {
        seen.push(event);
      },
      ...rest,
      metrics,
      config: { ...webhookConfig(webhook), ...links },
      state,
    });
    started.push(receiver);
    return { receiver, seen, metrics };
  };
}

export function documentChange(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    entityId: 20053,
    eventId: randomUUID(),
    eventType: 'documentChange',
    eventSubType: 'newDocument',
    firmId: 'firm-3001',
    tenants: [{ tenantId: 1075468, tenantType: 'documentId' }],
    userId: 'user-1',
    ...overrides,
  };
}

export interface PostOptions {
  /** Signed date; default now. */
  readonly date?: Date;
  readonly secret?: string;
  readonly clientCode?: string;
  /** The URL the signature covers; default the URL posted to. */
  readonly signedUrl?: string;
  /** false: send no Authorization header. */
  readonly sign?: boolean;
  readonly method?: string;
}

/** POSTs `body` (an object is sent as JSON text) the way the service does. */
export async function postWebhook(
  url: string,
  body: string | Record<string, unknown>,
  options: PostOptions = {},
): Promise<{ status: number; json: any; ms: number }> {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const date = (options.date ?? new Date()).toISOString();
  const signature = signWebhook(options.secret ?? SECRET, date, options.signedUrl ?? url, text);
  const headers: Record<string, string> = {
    'Content-Type': 'application/x-www-form-urlencoded',
  };
  if (options.sign !== false) {
    headers.Authorization = `${options.clientCode ?? CLIENT_CODE} ${date} ${signature}`;
  }
  const started = Date.now();
  const response = await fetch(url, { method: options.method ?? 'POST', headers, body: text });
  const answer = await response.text();
  return {
    status: response.status,
    json: answer ? JSON.parse(answer) : null,
    ms: Date.now() - started,
  };
}

export async function waitFor(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}
