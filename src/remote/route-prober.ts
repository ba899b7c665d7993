/**
 * One route of `docsync check` at a time: call it, read its answer with the client's schemas,
 * and write its line (what it answered, how many items, how long), or say why it was not tried.
 * After the service proved unreachable or refused the token, nothing more is called.
 */
import { type CheckLine, ok, warn } from '../domain/check-lines.js';
import { DocsyncError } from '../domain/errors.js';
import { plural } from '../domain/words.js';
import { ApiError } from './api-error.js';
import { PAGE_LIMIT } from './paging.js';
import { type Failure, failureLine } from './probe-failure.js';
import { type RouteName, routeLabel } from './routes.js';
import { parse } from './schemas.js';
import type { RequestSpec, ResponseInfo, ServiceHttp } from './service-http.js';

export interface ProberOptions {
  readonly http: ServiceHttp;
  /** The service's last answer (the client's `onResponse`): its status and time. */
  readonly lastAnswer: () => ResponseInfo | undefined;
  /** Named in the advice when the service cannot be reached. */
  readonly baseUrl: string;
}

/** Routes the sync itself calls: one that fails is a fail; the others serve `docsync api`. */
export const SYNC_ROUTES: ReadonlySet<RouteName> = new Set<RouteName>([
  'authorize',
  'statusTypes',
  'listCompanies',
  'listTrusts',
  'listDocuments',
  'documentDetails',
  'attachmentLink',
]);

export interface Read<T> {
  readonly value: T;
  /** What the answer held, e.g. "154 companies". */
  readonly what: string;
}

// "1 document", "3 documents": one wording for every line docsync prints.
export { plural };

export const counted = <T>(items: T[], total: number | null, noun: string): Read<T[]> => ({
  value: items,
  what: plural(total ?? items.length, noun),
});

/** How a list's items are called in a line, by its envelope key. */
const NOUNS: Readonly<Record<string, string>> = {
  companies: 'company',
  trusts: 'trust',
  documents: 'document',
  contacts: 'contact',
  trustRelationships: 'relationship',
  unitTransactions: 'unit transaction',
};

export class Prober {
  readonly lines: CheckLine[] = [];
  /** Why nothing more is tried: the service is unreachable or refuses the token. */
  #stopped: string | null = null;

  constructor(private readonly o: ProberOptions) {}

  /** One request; its answer read by `read`. Null when it failed (its line says why). */
  async call<T>(
    name: RouteName,
    spec: RequestSpec,
    read: (body: unknown, label: string) => Read<T>,
  ): Promise<T | null> {
    const route = this.o.http.route(name);
    const label = routeLabel(route);
    if (this.#stopped) {
      this.untried(name, this.#stopped);
      return null;
    }
    const before = this.o.lastAnswer();
    try {
      const body = await this.o.http.request(name, spec);
      const answer = this.#answer(before);
      const { value, what } = read(body, label);
      const status = answer?.status ?? 200;
      const time = answer ? ` in ${answer.durationMs} ms` : '';
      this.lines.push(
        ok(label, `answered ${status}: ${what}${time}${pathNote(name, route)}`, {
          ...routeData(name, this.o.http),
          status,
          ...(answer ? { durationMs: answer.durationMs } : {}),
        }),
      );
      return value;
    } catch (error) {
      if (!(error instanceof DocsyncError)) throw error;
      const answer = this.#answer(before);
      if (!(error instanceof ApiError)) this.#stopped = 'no access token';
      else if (error.code === 'NETWORK') this.#stopped = 'the service could not be reached';
      const failure: Failure = { name, route, error, answer, needed: SYNC_ROUTES.has(name) };
      this.lines.push(failureLine(failure, this.o.baseUrl, routeData(name, this.o.http)));
      return null;
    }
  }

  /**
   * The first page of a list (api.md: at most 500), every item parsed as the client would.
   * `of` says whose list it is when the route's path does not.
   */
  list<T>(
    name: RouteName,
    spec: RequestSpec,
    key: string,
    parseItem: (item: unknown, label: string) => T,
    of = '',
  ): Promise<T[] | null> {
    const query = { ...spec.query, offset: 0, limit: PAGE_LIMIT };
    return this.call(name, { ...spec, query }, (body, label) => {
      const page = parse.page(body, label, key);
      const items = page.items.map((item) => parseItem(item, label));
      const read = counted(items, page.total, NOUNS[key] ?? key);
      return { value: read.value, what: `${of}${read.what}` };
    });
  }

  /** A route with nothing to call it with: a warning when the sync needs it. */
  untried(
    name: RouteName,
    why: string,
    hint = 'docsync syncs with this route; run `docsync check` again once there is something to try it on.',
  ): void {
    const label = routeLabel(this.o.http.route(name));
    const data = { ...routeData(name, this.o.http), status: null };
    if (this.#stopped) {
      // Whatever else kept it from being tried, this came first.
      why = this.#stopped;
      hint = 'See the first failure above.';
    }
    this.lines.push(
      SYNC_ROUTES.has(name)
        ? warn(label, `not tried: ${why}`, hint, data)
        : ok(label, `not tried: ${why}`, data),
    );
  }

  #answer(before: ResponseInfo | undefined): ResponseInfo | undefined {
    const after = this.o.lastAnswer();
    return after === before ? undefined : after;
  }
}

function routeData(name: RouteName, http: ServiceHttp) {
  const { method, path, source, overridden } = http.route(name);
  return { route: name, method, path, source, overridden };
}

function pathNote(name: RouteName, route: { source: string; overridden: boolean }): string {
  if (route.overridden) return ` (path from service.routes.${name})`;
  return route.source === 'ours' ? ' ([ours] path, now seen to work)' : '';
}
