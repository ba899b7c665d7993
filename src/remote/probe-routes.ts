/**
 * `docsync check`'s first contact with the API: every route that reads (GET) is called once,
 * with ids that earlier answers gave, and each answer is parsed with the client's own schemas,
 * so a path, a scope or a shape that differs from api.md shows here and not in the middle of a
 * sync. The routes of an owner's documents are called for a company and for a trust, since the
 * service may put the two under different paths; a document list that answers 404 finds its
 * prefix as the first run would (document-prefixes.ts). Routes that change data are never called
 * here (`docsync check --write` does, on staging). Each line says what its route answered, or
 * that it was not tried and why.
 */
import type { Got } from 'got';
import { type CheckLine, ok, untried, warn } from '../domain/check-lines.js';
import type { Company, OwnerKind, OwnerRef } from '../domain/types.js';
import { prefixSentence } from './document-prefixes.js';
import type { LinkGuard } from './link-guard.js';
import { LINK_HOST_TOPIC, linkHostLine } from './link-host-line.js';
import { probeAuthorize } from './probe-authorize.js';
import { counted, Prober, type ProberOptions, plural } from './route-prober.js';
import { OWNER_ROUTE_NAMES, ROUTE_NAMES, ROUTES, routeLabel } from './routes.js';
import { normaliseIds, parse, type TrustRead } from './schemas.js';
import { Redirect, type ServiceHttp } from './service-http.js';
import { shapeLines } from './shape-lines.js';
import { redirectLink } from './shapes.js';

export interface RouteProbeOptions extends ProberOptions {
  /** For the authorise route, which a browser opens, without a token. */
  readonly clientId: string;
  /** As OAuth sends it: separated by spaces. */
  readonly scope: string;
  readonly redirectUri: string;
  /** The scopes the token was granted, when the service said (for the pension summary's line). */
  readonly granted?: readonly string[] | null;
  /** The got the authorise route is opened on (the client's). */
  readonly got?: Got;
  /** Where links may point: the link the service answers with is judged by it, not fetched. */
  readonly links?: LinkGuard;
}

/** The scopes the pension summary needs one of (api.md, public). */
export const PENSION_SCOPES = ['investment', 'audit', 'smsf_partner'] as const;

/** Why a route that needs an id from `list` was not tried. */
const none = (list: readonly unknown[] | null, what: string) =>
  list === null ? `the ${what} list failed` : `the service lists no ${what}`;

const KINDS = { company: 'companies', trust: 'trusts' } as const;

export async function probeRoutes(options: RouteProbeOptions): Promise<CheckLine[]> {
  const p = new Prober(options);
  p.lines.push(await probeAuthorize(options, options.http.route('authorize'), options.got));
  await p.call('statusTypes', {}, (body, label) => {
    const types = parse.statusTypes(
      options.http.shapes.list(body, label, 'statusTypes').items,
      label,
    );
    return counted(types, null, 'status type');
  });
  const companies = await probeCompanies(p);
  const trusts = await probeTrusts(p);
  const prefixesBefore = prefixesOf(options.http);
  await probeDocuments(p, options.http, 'company', companies, options.links);
  await probeDocuments(p, options.http, 'trust', trusts, options.links);
  p.lines.push(...prefixLines(options.http, prefixesBefore));
  await probeUnlodged(p, companies);
  await probeContacts(p, trusts);
  await probeUnitTransactions(p, trusts);
  p.untried(
    'pensionSummary',
    'it needs a fund id of the fund product (`docsync api pension-summary <fundId> --year YYYY` tries one)',
    pensionScopeHint(options.granted ?? null),
  );
  p.lines.push(...writeRoutes(options.http));
  p.lines.push(...shapeLines(options.http.shapes.seen()));
  return p.lines;
}

/** The company list (with details), the first company's details; null when the list failed. */
async function probeCompanies(p: Prober): Promise<Company[] | null> {
  const companies = await p.list(
    'listCompanies',
    { query: { details: true } },
    'companies',
    (item, label) => parse.company(item, label),
  );
  const company = companies?.[0];
  if (company && !('details' in company.raw)) p.lines.push(noDetails());
  if (company) {
    await p.call(
      'companyDetails',
      { params: { companyId: company.id }, query: { details: true } },
      (body, label) => ({
        value: parse.company(body, label),
        what: `company ${company.name}`,
      }),
    );
  } else p.untried('companyDetails', none(companies, 'company'));
  p.untried(
    'companiesByLabel',
    'it needs a label id, which no other route gives (`docsync api companies by-label <labelId>` tries one)',
  );
  return companies;
}

/** The trust list, the first trust's details and relationships; null when the list failed. */
async function probeTrusts(p: Prober): Promise<TrustRead[] | null> {
  const trusts = await p.list('listTrusts', {}, 'trusts', (item, label) =>
    parse.trust(item, label),
  );
  const trust = trusts?.[0];
  if (trust) {
    await p.call('trustDetails', { params: { trustId: trust.id } }, (body, label) => ({
      value: parse.trust(body, label),
      what: `trust ${trust.name ?? trust.id}`,
    }));
    await p.list(
      'trustRelationships',
      { params: { trustId: trust.id } },
      'trustRelationships',
      normaliseIds,
    );
  } else {
    p.untried('trustDetails', none(trusts, 'trust'));
    p.untried('trustRelationships', none(trusts, 'trust'));
  }
  if (trusts) p.lines.push(trustNamesLine(trusts));
  return trusts;
}

/** Where the trusts' names come from: `name`, else the `trustNameId` contact (trust-names.ts). */
function trustNamesLine(trusts: readonly TrustRead[]): CheckLine {
  const unnamed = trusts.filter((t) => t.name === null);
  const orphans = unnamed.filter((t) => t.trustNameId === null);
  const data = {
    trusts: trusts.length,
    withoutName: unnamed.length,
    withoutNameId: orphans.length,
  };
  if (unnamed.length === 0) return ok('trust names', 'every trust listed has a `name`', data);
  const text = `${plural(unnamed.length, 'trust')} of ${trusts.length} listed without \`name\`: docsync names them after their \`trustNameId\` contact (the contact route below reads one)`;
  if (orphans.length === 0) return ok('trust names', text, data);
  return warn(
    'trust names',
    `${text}; ${plural(orphans.length, 'trust')} without a \`trustNameId\` either`,
    'Those are named "Trust <id>" and shown as a warning in `docsync status`; give them a name in the service.',
    data,
  );
}

/**
 * One owner kind's document routes, on the first entity of that kind that has documents among
 * the first few: its list, a document's details and an attachment's link.
 */
async function probeDocuments(
  p: Prober,
  http: ServiceHttp,
  kind: OwnerKind,
  entities: readonly { readonly id: string }[] | null,
  links: LinkGuard | undefined,
): Promise<void> {
  const untriedAll = (why: string) => {
    for (const name of ['listDocuments', 'documentDetails', 'attachmentLink'] as const)
      p.untried(name, why, undefined, kind);
  };
  const first = entities?.[0];
  if (!first) return untriedAll(none(entities, KINDS[kind].replace(/s$/, '')));
  const owner: OwnerRef = { kind, id: first.id };
  const docs = await p.list(
    'listDocuments',
    { owner },
    'documents',
    (item, label) => {
      http.shapes.sawTimestamp('list', item);
      return parse.documentSummary(item, label, owner);
    },
    `${kind} ${first.id}: `,
  );
  const doc = docs?.[0];
  if (!doc) {
    const why = docs ? `${kind} ${first.id} has no documents` : 'the document list failed';
    p.untried('documentDetails', why, undefined, kind);
    p.untried('attachmentLink', why, undefined, kind);
    return;
  }
  const details = await p.call(
    'documentDetails',
    { owner, params: { documentId: doc.id } },
    (body, label) => {
      http.shapes.sawTimestamp('details', body);
      const read = parse.document(body, label, owner);
      const time = read.lastUpdatedTimestamp
        ? ''
        : '; no lastUpdatedTimestamp, so docsync takes the list item’s';
      return {
        value: read,
        what: `document ${read.id}, ${plural(read.attachments.length, 'attachment')}${time}`,
      };
    },
  );
  const attachment = details?.attachments[0];
  if (!details || !attachment) {
    const why = details
      ? `document ${details.id} has no attachment`
      : 'the document details failed';
    p.untried('attachmentLink', why, undefined, kind);
    return;
  }
  const params = { documentId: details.id, attachmentId: attachment.id };
  const spec = { owner, params, redirectAnswers: true };
  const link = await p.call('attachmentLink', spec, (body, label) => {
    const read =
      body instanceof Redirect
        ? http.shapes.link(redirectLink(body.location, body.answeredUrl), label, body.location)
        : http.shapes.linkOfBody(body, label);
    // The link itself is not fetched: the check reads no file.
    return { value: read, what: `a link on ${new URL(read.url).host}` };
  });
  // One line per link host: the companies' and the trusts' links are most likely on the same.
  const origin = link && new URL(link.url).origin;
  const judged = p.lines.some((l) => l.topic === LINK_HOST_TOPIC && l.data?.origin === origin);
  if (link && links && !judged) p.lines.push(await linkHostLine(links, link.url));
}

type Prefixes = Record<OwnerKind, string | null>;

function prefixesOf(http: ServiceHttp): Prefixes {
  return { company: http.documentPrefix('company'), trust: http.documentPrefix('trust') };
}

/** Per owner kind: the prefix its documents answered at, found now or on an earlier contact. */
function prefixLines(http: ServiceHttp, before: Prefixes): CheckLine[] {
  return (['company', 'trust'] as const).map((kind) => {
    const topic = `documents of ${KINDS[kind]}`;
    const prefix = http.documentPrefix(kind);
    const list = http.route('listDocuments', kind);
    if (list.overridden) {
      return ok(topic, `at ${routeLabel(list)}, as service.routes sets it`, { kind, prefix: null });
    }
    if (prefix === null) {
      return untried(topic, 'no prefix found: no document list of this kind answered', undefined, {
        kind,
        prefix,
      });
    }
    const when = before[kind] === null ? 'found now' : 'found on an earlier first contact';
    return ok(topic, `${prefixSentence(kind, prefix)} (${when}; recorded in the state)`, {
      kind,
      prefix,
    });
  });
}

/** The unlodged documents of the first company, and of the firm. */
async function probeUnlodged(p: Prober, companies: Company[] | null): Promise<void> {
  const company = companies?.[0];
  if (company) {
    await p.list(
      'unlodgedOfCompany',
      { params: { companyId: company.id } },
      'documents',
      parse.unlodged,
    );
  } else p.untried('unlodgedOfCompany', none(companies, 'company'));
  await p.list('unlodgedOfFirm', {}, 'documents', parse.unlodged);
}

/** The contact list, and one contact: the first trust's naming contact, else the first listed. */
async function probeContacts(p: Prober, trusts: TrustRead[] | null): Promise<void> {
  const contacts = await p.list('listContacts', {}, 'contacts', normaliseIds);
  const naming = trusts?.find((t) => t.name === null && t.trustNameId !== null);
  const contactId = naming?.trustNameId ?? contacts?.[0]?.id;
  if (typeof contactId === 'string') {
    await p.call('contact', { params: { contactId } }, (body, label) => ({
      value: normaliseIds(body, label),
      what: naming
        ? `contact ${contactId}, which names trust ${naming.id}`
        : `contact ${contactId}`,
    }));
  } else p.untried('contact', none(contacts, 'contact'));
}

/** The unit transactions of the first unit trust listed. */
async function probeUnitTransactions(p: Prober, trusts: TrustRead[] | null): Promise<void> {
  const unitTrust = trusts?.find((t) => t.type === 'UNIT');
  if (unitTrust) {
    await p.list(
      'listUnitTransactions',
      { params: { trustId: unitTrust.id } },
      'unitTransactions',
      normaliseIds,
    );
  } else {
    const why =
      trusts === null
        ? 'the trust list failed'
        : 'no trust of type UNIT among the first trusts listed';
    p.untried('listUnitTransactions', why);
  }
}

/** The pension summary needs one of three scopes the public pages name. */
function pensionScopeHint(granted: readonly string[] | null): string | undefined {
  if (granted === null || PENSION_SCOPES.some((s) => granted.includes(s))) return undefined;
  return `The grant has none of the scopes the pension summary needs (${PENSION_SCOPES.join(', ')}): add one to service.scope and run \`docsync auth login\`, if the firm uses it.`;
}

function noDetails(): CheckLine {
  return warn(
    'company details',
    'the company list answered without `details` although details=true was asked',
    '`.entity.json` will lack labels, clientNumber and superFundContactIds; tell the service provider.',
  );
}

/**
 * The routes that change data: never called by check, so not known to work. One line per
 * owner kind names their paths as the sync would call them.
 */
function writeRoutes(http: ServiceHttp): CheckLine[] {
  const writes = ROUTE_NAMES.filter((name) => ROUTES[name].method !== 'GET' && name !== 'token');
  const ofOwners = writes.filter((name) => (OWNER_ROUTE_NAMES as readonly string[]).includes(name));
  const others = writes.filter((name) => !ofOwners.includes(name));
  const hint =
    '`docsync check --write <company or trust>` proves them on staging, step by step, with a test document it deletes again; no run calls some of them before a firm depends on them.';
  const perKind = (['company', 'trust'] as const).map((kind) => {
    const paths = ofOwners.map((name) => routeLabel(http.route(name, kind)));
    return untried(
      `routes that change ${kind} documents`,
      `not tried, since check changes nothing: ${paths.join(', ')}`,
      hint,
      { kind, routes: ofOwners },
    );
  });
  return [
    ...perKind,
    untried(
      'other routes that change data',
      `not tried, since check changes nothing: ${others.join(', ')} (only the \`api\` command uses them)`,
      undefined,
      { routes: others },
    ),
  ];
}
