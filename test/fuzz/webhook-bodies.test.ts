/**
 * Bad input at the webhook receiver: random bytes, truncated and huge bodies, JSON of the wrong
 * shape and types, signed and unsigned. Whatever arrives, the answer is a 4xx with a reason
 * (never a 5xx, never a hang), nothing malformed is stored or worked on, and the receiver still
 * accepts a good message afterwards.
 */
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/simulator/random.js';
import { useStateStore } from '../helpers/state-store.js';
import {
  documentChange,
  postWebhook,
  useWebhookReceivers,
  waitFor,
} from '../helpers/webhook-receiver.js';

const stateStore = useStateStore();
const startReceiver = useWebhookReceivers();
const SEED = Number(process.env.FUZZ_SEED ?? 20261121);

type Rng = () => number;
const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)]!;

/** A random JSON value up to `depth` levels, of every JSON type. */
function randomValue(rng: Rng, depth: number): unknown {
  const kind = Math.floor(rng() * (depth > 0 ? 8 : 6));
  switch (kind) {
    case 0:
      return null;
    case 1:
      return rng() < 0.5;
    case 2:
      return Math.floor(rng() * 2 ** 40) * (rng() < 0.5 ? -1 : 1);
    case 3:
      return rng() * 1e6;
    case 4:
      return randomText(rng, Math.floor(rng() * 40));
    case 5:
      return '';
    case 6:
      return Array.from({ length: Math.floor(rng() * 4) }, () => randomValue(rng, depth - 1));
    default:
      return Object.fromEntries(
        Array.from({ length: Math.floor(rng() * 4) }, () => [
          randomText(rng, 6),
          randomValue(rng, depth - 1),
        ]),
      );
  }
}

function randomText(rng: Rng, length: number): string {
  return Array.from({ length }, () =>
    String.fromCodePoint(
      pick(rng, [0, 9, 34, 92, 0x41 + Math.floor(rng() * 26), 0xe9, 0x1f600, 0xfeff]),
    ),
  ).join('');
}

/** One hostile body and whether it is sent signed. */
function hostileBody(rng: Rng): { body: string; sign: boolean } {
  const valid = JSON.stringify(documentChange({ eventId: `e-${Math.floor(rng() * 1e9)}` }));
  const field = pick(rng, [
    'entityId',
    'eventId',
    'eventType',
    'eventSubType',
    'firmId',
    'tenants',
    'userId',
  ]);
  const variants: (() => string)[] = [
    () =>
      Buffer.from(
        Array.from({ length: Math.floor(rng() * 300) }, () => Math.floor(rng() * 256)),
      ).toString('latin1'),
    () => valid.slice(0, Math.floor(rng() * (valid.length - 1))),
    () => JSON.stringify(randomValue(rng, 3)),
    () => JSON.stringify({ ...JSON.parse(valid), [field]: randomValue(rng, 2) }),
    () => {
      const message = JSON.parse(valid);
      delete message[field];
      return JSON.stringify(message);
    },
    () => JSON.stringify({ ...JSON.parse(valid), tenants: [randomValue(rng, 2)] }),
    () => `${valid}${randomText(rng, 5)}`,
    () => '',
  ];
  return { body: pick(rng, variants)(), sign: rng() < 0.8 };
}

describe('webhook bodies (fuzz)', () => {
  it(`answers every hostile body with a 4xx and keeps working (seed ${SEED})`, async () => {
    const state = stateStore.open();
    const { receiver, seen } = await startReceiver(state);
    const rng = seededRandom(SEED);
    const statuses = new Map<number, number>();
    for (let i = 0; i < 300; i++) {
      const { body, sign } = hostileBody(rng);
      const answer = await postWebhook(receiver.url, body, { sign }).catch((error: Error) => ({
        status: -1,
        json: error.message,
      }));
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      if (answer.status === 200) continue; // a mutation that still left a valid message
      expect([400, 401], `body ${JSON.stringify(body).slice(0, 120)}`).toContain(answer.status);
      expect(answer.json?.message, 'a reason').toMatch(/\w/);
    }
    // Huge bodies, with and without a declared length, are cut off at 64 KiB.
    for (const size of [64 * 1024 + 1, 1024 * 1024]) {
      const huge = await postWebhook(receiver.url, 'x'.repeat(size));
      expect(huge.status).toBe(413);
    }
    expect(statuses.has(-1), 'no connection error or hang').toBe(false);
    expect([...statuses.keys()].every((s) => s < 500)).toBe(true);

    const accepted = seen.length;
    const good = await postWebhook(receiver.url, documentChange({ eventId: 'after-the-storm' }));
    expect(good.status).toBe(200);
    await waitFor(() => seen.length === accepted + 1);
    // Only well-formed messages were ever stored.
    expect(state.webhookEvents.pendingEvents().every((e) => typeof e.eventId === 'string')).toBe(
      true,
    );
  });
});
