/** Companies, labels, trusts, trust relationships, status types and contacts (read-only). */
import type { Route } from './http-kit.js';
import { envelope, parseBoolean, parsePage } from './paging.js';
import type { SimProfile } from './profile.js';
import { notFound } from './sim-error.js';
import type { SimStore } from './store.js';
import { companyView, contactView, relationshipView, trustView } from './views.js';

const get = (template: string, handle: Route['handle']): Route => ({
  method: 'GET',
  template,
  auth: true,
  handle,
});

export function entityRoutes(store: SimStore, profile: SimProfile): Route[] {
  return [...companyRoutes(store), ...trustRoutes(store, profile), ...contactRoutes(store)];
}

function companyRoutes(store: SimStore): Route[] {
  return [
    get('/companies', ({ query }) => {
      const details = parseBoolean(query, 'details');
      const page = parsePage(query);
      const body = envelope('companies', store.companies.values(), page, (c) =>
        patched(store, 'company', c.id, companyView(c, store, details)),
      );
      return { status: 200, body };
    }),
    get('/companies/{companyId}', ({ params, query }) => {
      const company = store.requireCompany(params.companyId!);
      const view = companyView(company, store, parseBoolean(query, 'details'));
      return { status: 200, body: patched(store, 'company', company.id, view) };
    }),
    get('/labels/{labelId}/companies', ({ params, query }) => {
      const details = parseBoolean(query, 'details');
      const page = parsePage(query);
      const label = /^\d+$/.test(params.labelId!)
        ? store.labels.get(Number(params.labelId))
        : undefined;
      if (!label) throw notFound(`No label with id ${params.labelId}`);
      const labelled = [...store.companies.values()].filter((c) => c.labelIds.includes(label.id));
      return {
        status: 200,
        body: envelope('companies', labelled, page, (c) => companyView(c, store, details)),
      };
    }),
  ];
}

function trustRoutes(store: SimStore, profile: SimProfile): Route[] {
  return [
    get('/trusts', ({ query }) => ({
      status: 200,
      body: envelope('trusts', store.trusts.values(), parsePage(query), (t) =>
        patched(store, 'trust', t.id, trustView(t, profile)),
      ),
    })),
    get('/trusts/{trustId}', ({ params }) => {
      const trust = store.requireTrust(params.trustId!);
      return { status: 200, body: patched(store, 'trust', trust.id, trustView(trust, profile)) };
    }),
    get('/trusts/{trustId}/relationships', ({ params, query }) => {
      const trust = store.requireTrust(params.trustId!);
      const history = parseBoolean(query, 'includeHistory');
      const page = parsePage(query);
      // Without history only current relationships are listed, and without their ceasedDate.
      const all = store.relationships.get(trust.id) ?? [];
      const shown = history ? all : all.filter((r) => r.ceasedDate === null);
      return {
        status: 200,
        body: envelope('trustRelationships', shown, page, (r) => relationshipView(r, history)),
      };
    }),
  ];
}

function contactRoutes(store: SimStore): Route[] {
  return [
    get('/documents/statusTypes', () => ({
      status: 200,
      body: {
        statusTypes: [...store.statusTypes.values()].map((t) => ({ id: t.id, name: t.name })),
      },
    })),
    get('/contacts', ({ query }) => {
      const details = parseBoolean(query, 'details');
      const page = parsePage(query);
      return {
        status: 200,
        body: envelope('contacts', store.contacts.values(), page, (c) => contactView(c, details)),
      };
    }),
    get('/contacts/{contactId}', ({ params, query }) => {
      const id = params.contactId!;
      const contact = /^\d+$/.test(id) ? store.contacts.get(Number(id)) : undefined;
      if (!contact) throw notFound(`No contact with id ${id}`);
      return { status: 200, body: contactView(contact, parseBoolean(query, 'details')) };
    }),
  ];
}

/** A record as sent: the view, with what admin.patchRecord put over it. */
function patched<T extends object>(store: SimStore, kind: string, id: string | number, view: T) {
  const patch = store.recordPatches.get(`${kind}:${id}`);
  return patch ? { ...view, ...patch } : view;
}
