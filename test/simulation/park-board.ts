/**
 * The simulation's scheduler (docs/simulation.md): the only one that decides what runs next.
 * Every chain of the daemon's work parks at a failpoint, at an answer the harness holds back, or
 * at an operator's job; the harness releases one parked item at a time and then waits, with
 * `settle`, until everything in flight is parked again or done. Between two steps, then, nothing
 * runs, so what happens next depends only on the seed's choices: a seed replays exactly.
 *
 * "In flight" is known two ways: calls into the ports (the service, the folder), counted by the
 * wrappers in port-wrappers.ts, and file-system requests of anyone else (the operator's reads),
 * which Node lists among its active resources. Timers are fake (the harness fires them one by
 * one), so nothing starts behind the harness's back.
 */
import type { Failpoint, FailpointSite } from '../../src/engine/failpoints.js';
import { PortTurns } from './port-turns.js';

/** The world was crashed while this waited: the chain ends here, as the process did. */
export class CrashedError extends Error {
  constructor() {
    super('the simulated daemon crashed');
    this.name = 'CrashedError';
  }
}

export type ParkKind = 'failpoint' | 'answer' | 'operator';

export interface Parked {
  /** Arrival order within the run: parked items are offered in this order. */
  readonly serial: number;
  readonly kind: ParkKind;
  /** What waits, for the trace: `before-commit company:2 doc 1003 push-status`. */
  readonly label: string;
  readonly step: Failpoint | null;
  readonly site: FailpointSite;
  /** The daemon's life it belongs to: a crash ends every item of its life. */
  readonly life: number;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

/** How long real I/O may take before the harness calls the run stuck (it never should). */
const STUCK_MS = 20_000;

// Taken when this module loads, before the run fakes the timers: the harness's own waits are real.
const realSetTimeout = globalThis.setTimeout;
const realClearTimeout = globalThis.clearTimeout;
const realSetImmediate = globalThis.setImmediate;
const realImmediate = () => new Promise<void>((resolve) => realSetImmediate(resolve));

export class ParkBoard {
  #parked: Parked[] = [];
  #serial = 0;
  /** Port calls in flight, by label (several may share one). */
  readonly #inFlight = new Map<number, string>();
  #callSerial = 0;
  /** Bumped by every park, release and port call: settle waits until it stands still. */
  #activity = 0;
  #idle: (() => void) | null = null;
  readonly #realNow = performance.now.bind(performance);
  /** Port calls take turns (port-turns.ts): a call waiting for its turn counts as in flight. */
  readonly turns = new PortTurns();

  get parked(): readonly Parked[] {
    return this.#parked;
  }

  /** Port calls in flight now. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  park(kind: ParkKind, label: string, life: number, step: Failpoint | null = null, site = {}) {
    return new Promise<void>((resolve, reject) => {
      this.#parked.push({
        serial: ++this.#serial,
        kind,
        label,
        step,
        site,
        life,
        resolve,
        reject,
      });
      this.#activity++;
    });
  }

  /** Lets one parked item go on; the caller settles before choosing the next step. */
  release(item: Parked): void {
    this.#take(item);
    item.resolve();
  }

  /** Ends every item of a crashed life where it waits. */
  crash(life: number): void {
    for (const item of this.#parked.filter((p) => p.life === life)) {
      this.#take(item);
      item.reject(new CrashedError());
    }
  }

  #take(item: Parked): void {
    this.#parked = this.#parked.filter((p) => p !== item);
    this.#activity++;
  }

  /** Counts a call into a port as in flight until it settles; it runs in its turn. */
  async track<T>(label: string, call: () => Promise<T>): Promise<T> {
    const id = ++this.#callSerial;
    this.#inFlight.set(id, label);
    this.#activity++;
    try {
      return await this.turns.run(label, call);
    } finally {
      this.#inFlight.delete(id);
      this.#activity++;
      if (this.#inFlight.size === 0) this.#idle?.();
    }
  }

  /**
   * Resolves once nothing runs: no port call in flight, no file request pending, and a few turns
   * of the event loop went by with nothing parked, released or called.
   */
  async settle(): Promise<void> {
    const began = this.#realNow();
    let quiet = 0;
    while (quiet < 3) {
      const before = this.#activity;
      await realImmediate();
      if (this.#realNow() - began > STUCK_MS)
        throw new Error(`the run is stuck: in flight ${[...this.#inFlight.values()].join(', ')}`);
      if (this.#inFlight.size > 0) {
        await this.#untilIdle(began);
        quiet = 0;
      } else if (fileRequestsPending() || this.#activity !== before) quiet = 0;
      else quiet++;
    }
  }

  #untilIdle(began: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = realSetTimeout(
        () => this.#idle?.(),
        Math.max(0, STUCK_MS - (this.#realNow() - began)),
      );
      this.#idle = () => {
        this.#idle = null;
        realClearTimeout(timer);
        resolve();
      };
    });
  }
}

/** Node's names of a request to the file system or the network that has not completed. */
const REQUESTS = new Set([
  'FSReqCallback',
  'FSReqPromise',
  'CloseReq',
  'FileHandleCloseReq',
  'GetAddrInfoReqWrap',
  'ConnectWrap',
  'WriteWrap',
  'ShutdownWrap',
]);

/** A request of anyone's is running (the operator's reads go round the ports, for one). */
function fileRequestsPending(): boolean {
  return process.getActiveResourcesInfo().some((r) => REQUESTS.has(r));
}
