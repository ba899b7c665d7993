/**
 * The request governor (src/domain/request-governor.ts) driven against a simulated gateway on
 * virtual time: a client that always has requests waiting sends at the governor's pace, each
 * request reaches the gateway after a random delay (the network's jitter), is counted there by
 * the simulator's own rate limit (src/simulator/rate-limit.ts, in any of its modes), and its
 * answer comes back a round trip later; a 429 is handed to the governor. Event by event, not
 * millisecond by millisecond: half an hour of requests takes a fraction of a second.
 */
import {
  currentRate,
  departing,
  departureAt,
  dueAt,
  newGovernor,
  throttled,
  wentOut,
} from '../../src/domain/request-governor.js';
import { seededRandom } from '../../src/simulator/random.js';
import { RateLimiter, type RateMode } from '../../src/simulator/rate-limit.js';

export interface GatewayDrive {
  /** `queue.requestsPerSecond`. */
  readonly ceiling: number;
  /** The gateway's limit, per second (hidden from the governor). */
  readonly limit: number;
  readonly modes: readonly RateMode[];
  readonly burst?: number;
  /** The most a request's arrival is delayed by, at random. */
  readonly jitterMs: number;
  /** The most a request goes out late after its turn (a timer, the HTTP client), at random. */
  readonly lateMs?: number;
  readonly durationMs: number;
  readonly concurrency?: number;
  readonly roundTripMs?: number;
  readonly seed?: number;
}

export interface GatewayRun {
  readonly sent: number;
  readonly refused: number;
  /** When each 429 was answered, from the start (ms). */
  readonly refusedAt: readonly number[];
  /** When each request went out, from the start (ms). */
  readonly outAt: readonly number[];
  /** Requests let through per second, over the whole run. */
  readonly passedPerSecond: number;
  /** The governor's rate at the end. */
  readonly rateAtEnd: number;
}

/** Far from 0, as Date.now() is; on a whole second, so calendar seconds start with the run. */
const START = 1_000_000;

interface Arrival {
  readonly at: number;
  readonly outAt: number;
}

interface Answer {
  readonly at: number;
  readonly outAt: number;
  readonly refused: boolean;
}

export function driveGateway(drive: GatewayDrive): GatewayRun {
  const gateway = new RateLimiter(drive.limit, drive.modes, drive.burst ?? 2);
  const random = seededRandom(drive.seed ?? 35);
  const concurrency = drive.concurrency ?? 4;
  const roundTrip = drive.roundTripMs ?? 20;
  const end = START + drive.durationMs;
  let state = newGovernor(drive.ceiling);
  const arrivals: Arrival[] = [];
  const answers: Answer[] = [];
  const outAt: number[] = [];
  const refusedAt: number[] = [];
  let passed = 0;
  let id = 0;
  for (let now = START; ; ) {
    const inFlight = arrivals.length + answers.length;
    const leave = inFlight < concurrency ? departureAt(state, now) : Number.POSITIVE_INFINITY;
    const arrive = Math.min(...arrivals.map((a) => a.at));
    const answer = Math.min(...answers.map((a) => a.at));
    now = Math.min(leave, arrive, answer);
    if (now >= end) break;
    if (answer === now) {
      const done = answers.splice(
        answers.findIndex((a) => a.at === now),
        1,
      )[0]!;
      if (done.refused) {
        refusedAt.push(now - START);
        state = throttled(state, done.outAt, now);
      } else passed++;
    } else if (arrive === now) {
      const came = arrivals.splice(
        arrivals.findIndex((a) => a.at === now),
        1,
      )[0]!;
      const refused = gateway.check('token', now) > 0;
      answers.push({ at: now + roundTrip, outAt: came.outAt, refused });
    } else {
      id++;
      state = departing(state, id, now);
      const out = now + random() * (drive.lateMs ?? 0);
      state = wentOut(state, id, out, dueAt(state, id) ?? now);
      outAt.push(out - START);
      arrivals.push({ at: out + random() * drive.jitterMs, outAt: out });
    }
  }
  return {
    sent: outAt.length,
    refused: refusedAt.length,
    refusedAt,
    outAt,
    passedPerSecond: passed / (drive.durationMs / 1000),
    rateAtEnd: currentRate(state, end),
  };
}

/** The most of `times` (ms) any span of `span` ms holds. */
export function busiest(times: readonly number[], span = 1000): number {
  let most = 0;
  let from = 0;
  const sorted = [...times].sort((a, b) => a - b);
  for (let i = 0; i < sorted.length; i++) {
    while (sorted[i]! - sorted[from]! >= span) from++;
    most = Math.max(most, i - from + 1);
  }
  return most;
}
