/**
 * One call into the ports at a time (docs/simulation.md, "How a seed stays deterministic"). With
 * `queue.concurrency` above 1 a released sync runs several documents and entities at once, and
 * their calls would race in real I/O: which answer comes first would be the machine's choice.
 * Here each call waits for its turn. A turn is given once the calls that could ask for it have
 * asked (a turn of the event loop after the last call ended, or the first arrived: everything
 * that runs between two steps is then waiting for a turn, parked, or done), to one of those
 * waiting, as the harness chooses (the seed's generator): the order of every call, and what
 * follows from it, replays, and a seed explores orders a machine would rarely show. A call made
 * inside another (a download a folder call makes into place) runs in its caller's turn: it is
 * part of that call, and waiting would never end.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

interface Waiting {
  readonly label: string;
  readonly go: () => void;
}

// Taken when this module loads, before the run fakes the timers: the turns are given in real time.
const realSetImmediate = globalThis.setImmediate;

/**
 * The turns a call runs in. One for the process: every storage ever made is visited at each new
 * promise, so one per seed would slow every later seed.
 */
const INSIDE = new AsyncLocalStorage<PortTurns>();

export class PortTurns {
  #running = false;
  #giving = false;
  #waiting: Waiting[] = [];
  /** Which of the calls waiting (their labels, in arrival order) goes next; the first by default. */
  choose: (waiting: readonly string[]) => number = () => 0;

  /** Whether the caller runs inside a port call's turn. */
  get nested(): boolean {
    return INSIDE.getStore() === this;
  }

  async run<T>(label: string, call: () => Promise<T>): Promise<T> {
    if (this.nested) return call();
    await new Promise<void>((go) => {
      this.#waiting.push({ label, go });
      this.#giveSoon();
    });
    try {
      return await INSIDE.run(this, call);
    } finally {
      this.#running = false;
      this.#giveSoon();
    }
  }

  /** The next turn, given after the chains that were running have asked for theirs. */
  #giveSoon(): void {
    if (this.#running || this.#giving || this.#waiting.length === 0) return;
    this.#giving = true;
    realSetImmediate(() => {
      this.#giving = false;
      if (this.#running || this.#waiting.length === 0) return;
      const index = this.#waiting.length === 1 ? 0 : this.choose(this.#waiting.map((w) => w.label));
      const [next] = this.#waiting.splice(index, 1);
      this.#running = true;
      next!.go();
    });
  }
}
