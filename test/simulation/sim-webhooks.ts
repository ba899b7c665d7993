/**
 * The service's webhooks, as the simulation sends them: one Document Change message per change
 * a service user made, signed as the service signs (api.md), posted over HTTP to the daemon's
 * own receiver. The seed decides when: at once, late (after other steps), reordered, twice (the
 * service's retry after a lost answer), or never (a delivery the service gave up on).
 * Event ids are the seed's own, so a replay sends the same messages.
 */
import { request } from 'node:http';
import type { OwnerRef } from '../../src/domain/types.js';
import { signWebhook } from '../../src/simulator/index.js';
import { WEBHOOK_CLIENT_CODE, WEBHOOK_SECRET } from './sim-world.js';

export interface QueuedWebhook {
  readonly eventId: string;
  readonly owner: OwnerRef;
  readonly documentId: string;
  readonly subType: string;
  readonly body: string;
  /**
   * A message the service sent in error: a `deleteDocument` naming a document it still has
   * (service-world.ts). Nothing may be deleted on its word alone.
   */
  readonly wrong: boolean;
  /** Times the receiver took it (200). */
  deliveries: number;
  /**
   * The newest cycle in the daemon's state just before the receiver first took it: the sync that
   * makes its event done is a later one (sim-invariants.ts, `webhookFindings`).
   */
  cyclesBefore: number;
  /** The harness's count of syncs begun and messages posted when it was last posted untaken. */
  postedAt?: number;
  /**
   * A sync of its entity begun after it was posted went through while it was not done yet: one
   * of a poll round too, which records no cycle of its own (`syncEnded`).
   */
  answered?: boolean;
}

export class WebhookQueue {
  /** Made by a change and not sent yet. */
  readonly waiting: QueuedWebhook[] = [];
  /** Sent at least once. */
  readonly sent: QueuedWebhook[] = [];
  #serial = 0;
  /** Counts syncs begun and messages posted, in order (`postedAt`). */
  #ticks = 0;
  /** When each entity's sync under way began (`all`: a cycle over every entity). */
  readonly #begun = new Map<string, number>();
  /** How far the service's clock is from ours: it signs with its own date (service-world.ts). */
  clockOffsetMs = 0;

  constructor(private readonly seed: number) {}

  queue(owner: OwnerRef, documentId: string, subType: string, wrong = false): QueuedWebhook {
    const eventId = `sim-${this.seed}-${++this.#serial}`;
    const body = JSON.stringify({
      entityId: owner.id,
      eventId,
      eventType: 'documentChange',
      eventSubType: subType,
      firmId: 'firm-3001',
      tenants: [{ tenantId: documentId, tenantType: 'documentId' }],
      userId: 'user-2002',
    });
    const hook = {
      eventId,
      owner,
      documentId,
      subType,
      body,
      wrong,
      deliveries: 0,
      cyclesBefore: 0,
    };
    this.waiting.push(hook);
    return hook;
  }

  /**
   * Posts it to the receiver; resolves with the receiver's status once it answered. `lastCycle`:
   * the newest cycle's id in the daemon's state now, while nothing runs (0: none yet).
   */
  async deliver(hook: QueuedWebhook, receiverUrl: string, lastCycle: number): Promise<number> {
    const i = this.waiting.indexOf(hook);
    if (i >= 0) {
      this.waiting.splice(i, 1);
      this.sent.push(hook);
    }
    if (hook.deliveries === 0) hook.postedAt = ++this.#ticks;
    const status = await post(receiverUrl, hook.body, Date.now() + this.clockOffsetMs);
    if (status === 200 && hook.deliveries++ === 0) hook.cyclesBefore = lastCycle;
    return status;
  }
  /** A sync of `owners` begins (the failpoint `cycle-start`). */
  syncBegan(owners: readonly OwnerRef[] | 'all'): void {
    const tick = ++this.#ticks;
    for (const key of keysOf(owners)) this.#begun.set(key, tick);
  }

  /**
   * A sync of `owners` ended (`cycle-end`); `wentThrough`: not failed nor cut short. Each event of
   * those entities posted before it began and not done by now is answered by it, whatever lane
   * it ran in. `done` reads the event's state in the daemon's state.
   */
  syncEnded(
    owners: readonly OwnerRef[] | 'all',
    wentThrough: boolean,
    done: (eventId: string) => boolean,
  ): void {
    for (const key of keysOf(owners)) {
      const began = this.#begun.get(key);
      this.#begun.delete(key);
      if (!wentThrough || began === undefined) continue;
      for (const hook of this.sent) {
        const ofIt = key === 'all' || key === `${hook.owner.kind}:${hook.owner.id}`;
        if (ofIt && (hook.postedAt ?? began) < began && !done(hook.eventId)) hook.answered = true;
      }
    }
  }
}

function keysOf(owners: readonly OwnerRef[] | 'all'): string[] {
  return owners === 'all' ? ['all'] : owners.map((o) => `${o.kind}:${o.id}`);
}

function post(url: string, body: string, signedAt: number): Promise<number> {
  const date = new Date(signedAt).toISOString();
  const authorization = `${WEBHOOK_CLIENT_CODE} ${date} ${signWebhook(WEBHOOK_SECRET, date, url, body)}`;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          'Content-Length': Buffer.byteLength(body),
          Authorization: authorization,
          Connection: 'close',
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
