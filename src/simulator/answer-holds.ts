/**
 * Answers held back on purpose: a request to a held route is carried out (the document is
 * created, the upload stored) and its answer waits until the test releases it. That is a late
 * answer as a slow service gives one, at a moment the test chooses instead of a guessed delay:
 * what the client does while the service has acted and it does not know yet.
 */

/** A route by method and the simulator's template without `/cas`, e.g. `POST /companies/{ownerId}/documents`. */
export interface HeldRoute {
  readonly method: string;
  readonly template: string;
}

export class AnswerHolds {
  readonly #routes = new Set<string>();
  #waiting: (() => void)[] = [];

  /** From now on, answers of `route` wait for `release`. */
  hold(route: HeldRoute): void {
    this.#routes.add(keyOf(route));
  }

  /** Answers carried out and waiting. */
  held(): number {
    return this.#waiting.length;
  }

  /** Sends every waiting answer and holds no route any more. */
  release(): void {
    this.#routes.clear();
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const go of waiting) go();
  }

  /** Resolves when the answer of this request may go: at once unless its route is held. */
  before(method: string, template: string): Promise<void> | null {
    if (!this.#routes.has(keyOf({ method, template }))) return null;
    return new Promise((resolve) => this.#waiting.push(resolve));
  }
}

const keyOf = (route: HeldRoute) => `${route.method.toUpperCase()} ${route.template}`;
