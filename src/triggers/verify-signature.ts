/**
 * The Document Change signature of api.md:
 * `Authorization: {clientCode} {utcDate} {signature}` with
 * `signature = base64(HMAC-SHA256(secret, utcDate + "POST" + fullRequestUrl + rawBody))`.
 *
 * The signature is checked before the date, so "stale-date" is only ever said of a message the
 * service really signed (a replay or a skewed clock), never of a forgery. Pure: the caller
 * passes the clock.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** How far the signed date may be from our clock, either way (daemon.md). */
export const MAX_DATE_SKEW_MS = 5 * 60_000;

/**
 * `yyyy-MM-ddTHH:mm:ss.SSSZ`, as api.md writes `utcDate`; with any number of fraction digits
 * (none, or the microseconds the service's other timestamps carry), since the signature covers
 * the date as sent and only its instant is ours to judge.
 */
const UTC_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

export interface SignatureInput {
  readonly authorization: string | undefined;
  readonly clientCode: string;
  readonly secret: string;
  /** The URL the service posted to, exactly as it was registered. */
  readonly url: string;
  readonly rawBody: Buffer;
  readonly nowMs: number;
}

export type SignatureCheck =
  | { readonly ok: true }
  | {
      readonly ok: false;
      readonly result: 'unsigned' | 'bad-signature' | 'stale-date';
      readonly reason: string;
    };

export function verifySignature(input: SignatureInput): SignatureCheck {
  if (!input.authorization) return fail('unsigned', 'no Authorization header');
  const parts = input.authorization.trim().split(/\s+/);
  if (parts.length !== 3) {
    return fail('bad-signature', 'Authorization is not "{clientCode} {utcDate} {signature}"');
  }
  const [clientCode, utcDate, signature] = parts as [string, string, string];
  // The public page writes the client code in lower case: one code, whatever its letter case.
  if (clientCode.toLowerCase() !== input.clientCode.toLowerCase())
    return fail('bad-signature', 'unknown client code');
  const signedAt = instantOf(utcDate);
  if (signedAt === null) {
    return fail('bad-signature', 'the date is not yyyy-MM-ddTHH:mm:ss[.fraction]Z');
  }
  if (!signatureMatches(input, utcDate, signature)) {
    return fail('bad-signature', 'the signature does not match');
  }
  const skew = Math.abs(input.nowMs - signedAt);
  if (skew > MAX_DATE_SKEW_MS) {
    return fail('stale-date', `the signed date is ${Math.round(skew / 1000)} s from our clock`);
  }
  return { ok: true };
}

/** The date's instant in epoch ms (a fraction beyond milliseconds is cut), or null. */
function instantOf(utcDate: string): number | null {
  if (!UTC_DATE.test(utcDate)) return null;
  const [whole, fraction = ''] = utcDate.slice(0, -1).split('.');
  const ms = Date.parse(`${whole}.${fraction.padEnd(3, '0').slice(0, 3)}Z`);
  return Number.isNaN(ms) ? null : ms;
}

function signatureMatches(input: SignatureInput, utcDate: string, signature: string): boolean {
  const expected = createHmac('sha256', input.secret)
    .update(`${utcDate}POST${input.url}`)
    .update(input.rawBody)
    .digest();
  const given = Buffer.from(signature, 'base64');
  // timingSafeEqual needs equal lengths; the length of an HMAC-SHA256 is public anyway.
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function fail(result: 'unsigned' | 'bad-signature' | 'stale-date', reason: string): SignatureCheck {
  return { ok: false, result, reason };
}
