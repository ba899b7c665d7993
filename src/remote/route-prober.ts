/**
 * One route of `docsync check` at a time: call it, read its answer with the client's schemas,
 * and write its line (what it answered, how many items, how long), or say why it was not tried.
 * After the service proved unreachable or refused the token, nothing more is called.
 */
import { type CheckLine, ok, untried } from '../domain/check-lines.js';
import { DocsyncError } from '../domain/errors.js';
import type { OwnerKind } from '../domain/types.js';
import { plural } from '../domain/words.js';
import { ApiError } from './api-error.js';
import { PAGE_LIMIT } from './paging.js';
import { type Failure, failureLine } from './probe-failure.js';
import { type KindRoute, type Route, type RouteName, routeLabel } from './routes.js';
import type { RequestSpec, ResponseInfo, ServiceHttp } from './service-http.js';
import type { ListKey } from './shapes.js';

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

/**
 * Routes the sync goes on without, and how: one that fails is a warning that says what waits.
 * The status types name a status typed in `.document.json`; without them documents keep the
 * status names they carry (engine/catalogue.ts).
 */
export const DEGRADES_WITHOUT: ReadonlyMap<RouteName, string> = new Map<RouteName, string>([
  [
    'statusTypes',
    'the sync goes on without it: statuses are kept by the names the documents carry, and status pushes wait until the status types can be read',
  ],
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
    const kind = spec.owner?.kind;
    if (this.#stopped) {
      this.untried(name, this.#stopped, undefined, kind);
      return null;
    }
    const before = this.o.lastAnswer();
    try {
      const body = await this.o.http.request(name, spec);
      // As called: a first document list of a kind may have found its prefix just now.
      const route = this.o.http.route(name, kind);
      const label = routeLabel(route);
      const answer = this.#answer(before);
      const { value, what } = read(body, label);
      const status = answer?.status ?? 200;
      const time = answer ? ` in ${answer.durationMs} ms` : '';
      this.lines.push(
        ok(label, `answered ${status}: ${what}${time}${pathNote(name, route)}`, {
          ...routeData(name, route),
          status,
          ...(answer ? { durationMs: answer.durationMs } : {}),
        }),
      );
      return value;
    } catch (error) {
      if (!(error instanceof DocsyncError)) throw error;
      const answer = this.#answer(before);
      const route = this.o.http.route(name, kind);
      if (!(error instanceof ApiError)) this.#stopped = 'no access token';
      else if (error.code === 'NETWORK') this.#stopped = 'the service could not be reached';
      // Only an answer (a 404, another shape) is gone without; no answer at all stops the sync.
      const answered = error instanceof ApiError && error.code !== 'NETWORK';
      const degrades = answered ? DEGRADES_WITHOUT.get(name) : undefined;
      const failure: Failure = {
        name,
        route,
        error,
        answer,
        needed: SYNC_ROUTES.has(name) && degrades === undefined,
        ...(degrades ? { degrades } : {}),
      };
      this.lines.push(failureLine(failure, this.o.baseUrl, routeData(name, route)));
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
    key: ListKey,
    parseItem: (item: unknown, label: string) => T,
    of = '',
  ): Promise<T[] | null> {
    const query = { ...spec.query, offset: 0, limit: PAGE_LIMIT };
    return this.call(name, { ...spec, query }, (body, label) => {
      const page = this.o.http.shapes.list(body, label, key);
      const items = page.items.map((item) => parseItem(item, label));
      const read = counted(items, page.total, NOUNS[key] ?? key);
      return { value: read.value, what: `${of}${read.what}` };
    });
  }

  /**
   * A route with nothing to call it with: not tried, so not known to work. When the sync needs
   * it, the hint says so and how to try it.
   */
  untried(name: RouteName, why: string, hint?: string, kind?: OwnerKind): void {
    const route = this.o.http.route(name, kind);
    const data = { ...routeData(name, route), status: null };
    let how =
      hint ??
      (SYNC_ROUTES.has(name)
        ? 'docsync syncs with this route; run `docsync check` again once there is something to try it on.'
        : undefined);
    if (this.#stopped) {
      // Whatever else kept it from being tried, this came first.
      why = this.#stopped;
      how = 'See the first failure above.';
    }
    this.lines.push(untried(routeLabel(route), `not tried: ${why}`, how, data));
  }

  #answer(before: ResponseInfo | undefined): ResponseInfo | undefined {
    const after = this.o.lastAnswer();
    return after === before ? undefined : after;
  }
}

export function routeData(name: RouteName, route: Route) {
  const { method, path, source, overridden } = route;
  const kind = isKindRoute(route) ? { kind: route.kind, setting: route.setting } : {};
  return { route: name, method, path, source, overridden, ...kind };
}

export function isKindRoute(route: Route): route is KindRoute {
  return 'kind' in route;
}

function pathNote(name: RouteName, route: Route): string {
  if (route.overridden) {
    return ` (path from ${isKindRoute(route) && route.byKind?.[route.kind] !== undefined ? route.setting : `service.routes.${name}`})`;
  }
  if (isKindRoute(route) && route.prefixFound) return ' (prefix found on first contact)';
  return route.source === 'ours' ? ' ([ours] path, now seen to work)' : '';
}
