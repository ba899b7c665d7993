/**
 * Document Change webhooks, as api.md describes them: a JSON text sent as
 * `application/x-www-form-urlencoded`, signed with
 * `base64(HMAC-SHA256(secret, utcDate + "POST" + fullRequestUrl + rawBody))`, where
 * fullRequestUrl is the registered URL exactly as registered. A message without a 2xx answer
 * within the timeout is retried on the schedule, so one eventId may arrive more than once and
 * out of order. Every attempt is logged with the receiver's answer.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { formatWebhookDate, type SimClock } from './clock.js';
import { type SimProfile, webhookEntityId } from './profile.js';
import type { SimShapes } from './shapes.js';
import type { ChangeEvent } from './store.js';

export interface WebhookTarget {
  readonly url: string;
  readonly clientCode: string;
  readonly secret: string;
}

export interface WebhookOptions {
  /** Delays before each retry; default 1 s, 5 s, 30 s, 2 min, 10 min (api.md). */
  readonly retryScheduleMs?: readonly number[];
  /** How long a receiver may take before the attempt counts as failed; default 10 s. */
  readonly timeoutMs?: number;
  readonly firmId?: string;
}

export interface WebhookAttempt {
  readonly eventId: string;
  readonly eventSubType: string;
  readonly documentId: string;
  readonly url: string;
  /** 1 for the first delivery, 2 for the first retry, ... */
  readonly attempt: number;
  /** Real (unshifted) time the attempt started, ISO. */
  readonly at: string;
  readonly requestBody: string;
  readonly authorization: string;
  /** The receiver's status and body; null when it did not answer (error or timeout). */
  readonly status: number | null;
  readonly responseBody: string | null;
  readonly error: string | null;
  readonly delivered: boolean;
  /** Delay before the next attempt; null when delivered or when the schedule is used up. */
  readonly nextRetryInMs: number | null;
}

export const DEFAULT_RETRY_SCHEDULE_MS = [1_000, 5_000, 30_000, 120_000, 600_000] as const;

export function signWebhook(secret: string, utcDate: string, url: string, body: string): string {
  return createHmac('sha256', secret).update(`${utcDate}POST${url}${body}`).digest('base64');
}

export class WebhookSender {
  target: WebhookTarget | null = null;
  private readonly log: WebhookAttempt[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly closing = new AbortController();
  private readonly schedule: readonly number[];
  private readonly timeoutMs: number;
  private readonly firmId: string;

  constructor(
    private readonly clock: SimClock,
    options: WebhookOptions = {},
    /** How ids, the client code and the date are written (profile.ts). */
    private readonly profile: SimProfile = 'api',
    /** Whether messages carry `eventSubType` (shapes.ts). */
    private readonly shapes: SimShapes | null = null,
  ) {
    this.schedule = options.retryScheduleMs ?? DEFAULT_RETRY_SCHEDULE_MS;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.firmId = options.firmId ?? 'firm-3001';
  }

  /** One message per change; nothing is queued while no target is registered. */
  send(event: ChangeEvent): void {
    const target = this.target;
    if (!target || this.closing.signal.aborted) return;
    const body = JSON.stringify({
      entityId:
        event.owner.kind === 'company'
          ? webhookEntityId(this.profile, event.owner.id)
          : event.owner.id,
      eventId: randomUUID(),
      eventType: 'documentChange',
      ...(this.shapes?.webhookSubType === false ? {} : { eventSubType: event.subType }),
      firmId: this.firmId,
      tenants: [{ tenantId: String(event.documentId), tenantType: 'documentId' }],
      userId: event.userId,
    });
    this.track(this.attempt(target, body, 1));
  }

  attempts(): WebhookAttempt[] {
    return [...this.log];
  }

  /** Resolves once nothing is in flight and no retry is waiting (tests, benchmarks). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0 || this.timers.size > 0) {
      await Promise.race([...this.inFlight, new Promise((r) => setTimeout(r, 20))]);
    }
  }

  close(): void {
    this.closing.abort();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private track(work: Promise<void>): void {
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work));
  }

  private async attempt(target: WebhookTarget, body: string, attempt: number): Promise<void> {
    const api = this.profile === 'api';
    // The public reading: microseconds, as the service's other timestamps, and the page's case.
    const utcDate = api
      ? formatWebhookDate(this.clock.nowMs())
      : formatWebhookDate(this.clock.nowMs()).replace(/Z$/, '417Z');
    const clientCode = api ? target.clientCode : target.clientCode.toLowerCase();
    const authorization = `${clientCode} ${utcDate} ${signWebhook(target.secret, utcDate, target.url, body)}`;
    const at = new Date().toISOString();
    const answer = await this.post(target.url, authorization, body);
    if (this.closing.signal.aborted) return;
    const delivered = answer.status !== null && answer.status >= 200 && answer.status < 300;
    const next = delivered ? undefined : this.schedule[attempt - 1];
    const message = JSON.parse(body) as {
      eventId: string;
      eventSubType: string;
      tenants: [{ tenantId: string }];
    };
    this.log.push({
      eventId: message.eventId,
      eventSubType: message.eventSubType,
      documentId: message.tenants[0].tenantId,
      url: target.url,
      attempt,
      at,
      requestBody: body,
      authorization,
      ...answer,
      delivered,
      nextRetryInMs: next ?? null,
    });
    if (next !== undefined) {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        this.track(this.attempt(target, body, attempt + 1));
      }, next);
      this.timers.add(timer);
    }
  }

  private async post(url: string, authorization: string, body: string) {
    const signal = AbortSignal.any([this.closing.signal, AbortSignal.timeout(this.timeoutMs)]);
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          Authorization: authorization,
        },
        body,
        signal,
      });
      const text = await response.text();
      return { status: response.status, responseBody: text, error: null };
    } catch (error) {
      return { status: null, responseBody: null, error: (error as Error).message };
    }
  }
}
