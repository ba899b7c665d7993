/**
 * The steps of `docsync check --write` (write-proof.ts), each a line: the route as called for
 * the entity's kind, what it answered (the step's own request's answer, not a follow-up's), and
 * how long it took; or why it failed, or why it was not tried.
 */
import { type CheckLine, fail, ok, untried } from '../domain/check-lines.js';
import { DocsyncError } from '../domain/errors.js';
import type { OwnerRef } from '../domain/types.js';
import { ApiError } from '../remote/api-error.js';
import { routeData } from '../remote/route-prober.js';
import { type Route, type RouteName, routeLabel } from '../remote/routes.js';
import { serviceAdvice } from '../remote/service-advice.js';
import type { ServiceClient } from '../remote/service-client.js';
import type { ResponseInfo, ServiceHttp } from '../remote/service-http.js';

/** What the steps read: the routes, every answer so far, and the service's URL for advice. */
export interface StepDeps {
  /** Reads the deleted test document back (`gone`). */
  readonly client: Pick<ServiceClient, 'document'>;
  readonly http: ServiceHttp;
  /** Every answer of the service so far, in order (the client's `onResponse`). */
  readonly answers: readonly ResponseInfo[];
  readonly baseUrl: string;
}

/** One request's line: the route as called for the entity's kind, and what it answered. */
export class Steps {
  readonly lines: CheckLine[] = [];
  readonly #tried = new Set<RouteName>();

  constructor(
    private readonly deps: StepDeps,
    readonly owner: OwnerRef,
  ) {}

  async run<T>(
    name: RouteName,
    call: () => Promise<T>,
    say: (value: T) => string,
  ): Promise<T | null> {
    this.#tried.add(name);
    const from = this.deps.answers.length;
    try {
      const value = await call();
      // The route as called: the first document list finds its prefix on the way.
      const route = this.deps.http.route(name, this.owner.kind);
      const answer = this.#answer(route, from);
      const time = answer ? ` in ${answer.durationMs} ms` : '';
      const status = answer?.status ?? 'ok';
      this.lines.push(
        ok(routeLabel(route), `answered ${status}: ${say(value)}${time}`, {
          ...routeData(name, route),
          status,
        }),
      );
      return value;
    } catch (error) {
      // Whatever stopped the step (the service, the folder the copy goes to) is its line; the
      // test document it leaves is named at the end and recorded for the next run to remove.
      if (!(error instanceof Error)) throw error;
      const route = this.deps.http.route(name, this.owner.kind);
      const answer = this.#answer(route, from);
      const hint =
        (error instanceof ApiError
          ? serviceAdvice(error, { baseUrl: this.deps.baseUrl, route: { name, route } })
          : null) ?? 'See the message; the steps after this one were not tried.';
      this.lines.push(
        fail(routeLabel(route), error.message, hint, {
          ...routeData(name, route),
          status: answer?.status ?? null,
        }),
      );
      return null;
    }
  }

  skip(name: RouteName, why: string): void {
    this.#tried.add(name);
    const route = this.deps.http.route(name, this.owner.kind);
    this.lines.push(
      untried(
        `${route.method} ${route.path}`,
        `not tried: ${why}`,
        undefined,
        routeData(name, route),
      ),
    );
  }

  /** Every write route not reached yet, as not tried. */
  skipRest(why: string): CheckLine[] {
    for (const name of WRITE_STEPS) if (!this.#tried.has(name)) this.skip(name, why);
    return this.lines;
  }

  /** The deleted test document must be gone: a read of it answers 404. */
  async gone(documentId: string): Promise<void> {
    const route = this.deps.http.route('documentDetails', this.owner.kind);
    const label = `${route.method} ${route.path}`;
    const data = routeData('documentDetails', route);
    try {
      await this.deps.client.document(this.owner, documentId);
      this.lines.push(
        fail(
          label,
          `the deleted test document ${documentId} still reads`,
          'The delete answered but did not delete: tell the service provider.',
          data,
        ),
      );
    } catch (error) {
      if (!(error instanceof DocsyncError)) throw error;
      const gone = error instanceof ApiError && error.status === 404;
      this.lines.push(
        gone
          ? ok(label, 'answered 404: the test document is gone, as deleted', {
              ...data,
              status: 404,
            })
          : fail(
              label,
              `reading the deleted test document back failed: ${error.message}`,
              'Look for the test document in the service, and delete it there if it is still listed.',
              data,
            ),
      );
    }
  }

  /**
   * The answer to the step's own request since `from`: the last one on its route (a create's
   * 201, not the 200 of the list a create reads its change time from), else the last of all.
   */
  #answer(route: Route, from: number): ResponseInfo | undefined {
    const since = this.deps.answers.slice(from);
    const label = routeLabel(route);
    return since.findLast((a) => a.route === label) ?? since.at(-1);
  }
}

const WRITE_STEPS: readonly RouteName[] = [
  'createDocument',
  'uploadAttachment',
  'attachmentLink',
  'assignStatus',
  'documentDetails',
  'deleteAttachment',
  'deleteDocument',
];
