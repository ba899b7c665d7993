/**
 * `docsync check`'s first contact with the API: every route that reads (GET) is called once,
 * with ids that earlier answers gave, and each answer is parsed with the client's own schemas,
 * so a path, a scope or a shape that differs from api.md shows here and not in the middle of a
 * sync. Routes that change data are never called. Each line says what its route answered.
 */
import { type CheckLine, ok, warn } from '../domain/check-lines.js';
import type { Company, OwnerRef, Trust } from '../domain/types.js';
import { probeAuthorize } from './probe-authorize.js';
import { counted, Prober, type ProberOptions, plural } from './route-prober.js';
import { ROUTE_NAMES, ROUTES } from './routes.js';
import { normaliseIds, parse } from './schemas.js';
import type { ServiceHttp } from './service-http.js';

export interface RouteProbeOptions extends ProberOptions {
  /** For the authorise route, which a browser opens, without a token. */
  readonly clientId: string;
  readonly scope: string;
  readonly redirectUri: string;
}

/** Why a route that needs an id from `list` was not tried. */
const none = (list: unknown[] | null, what: string) =>
  list === null ? `the ${what} list failed` : `the service lists no ${what}`;

export async function probeRoutes(options: RouteProbeOptions): Promise<CheckLine[]> {
  const p = new Prober(options);
  p.lines.push(await probeAuthorize(options, options.http.route('authorize')));
  await p.call('statusTypes', {}, (body, label) => {
    const types = parse.statusTypes(body, label);
    return counted(types, null, 'status type');
  });
  const companies = await probeCompanies(p);
  const trusts = await probeTrusts(p);
  await probeDocuments(p, companies?.[0], trusts?.[0]);
  await probeUnlodged(p, companies);
  await probeContacts(p);
  await probeUnitTransactions(p, trusts);
  p.untried(
    'pensionSummary',
    'it needs a fund id of the fund product (`docsync api pension-summary <fundId> --year YYYY` tries one)',
  );
  p.lines.push(writeRoutes(options.http));
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
async function probeTrusts(p: Prober): Promise<Trust[] | null> {
  const trusts = await p.list('listTrusts', {}, 'trusts', (item, label) =>
    parse.trust(item, label),
  );
  const trust = trusts?.[0];
  if (trust) {
    await p.call('trustDetails', { params: { trustId: trust.id } }, (body, label) => ({
      value: parse.trust(body, label),
      what: `trust ${trust.name}`,
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
  return trusts;
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

/** The contact list, and the first contact. */
async function probeContacts(p: Prober): Promise<void> {
  const contacts = await p.list('listContacts', {}, 'contacts', normaliseIds);
  const contactId = contacts?.[0]?.id;
  if (typeof contactId === 'string') {
    await p.call('contact', { params: { contactId } }, (body, label) => ({
      value: normaliseIds(body, label),
      what: `contact ${contactId}`,
    }));
  } else p.untried('contact', none(contacts, 'contact'));
}

/** The unit transactions of the first unit trust listed. */
async function probeUnitTransactions(p: Prober, trusts: Trust[] | null): Promise<void> {
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

/** The documents of the first company and the first trust (two paths), one's details and link. */
async function probeDocuments(p: Prober, company: Company | undefined, trust: Trust | undefined) {
  const found: { owner: OwnerRef; id: string }[] = [];
  let failed = false;
  for (const owner of [company, trust]) {
    if (!owner) continue;
    const docs = await p.list(
      'listDocuments',
      { owner },
      'documents',
      (item, label) => parse.documentSummary(item, label, owner),
      `${owner.kind} ${owner.name}: `,
    );
    if (docs === null) failed = true;
    for (const doc of docs ?? []) found.push({ owner, id: doc.id });
  }
  if (!company && !trust) p.untried('listDocuments', 'there is no company or trust to list');
  const first = found[0];
  if (!first) {
    const why = failed
      ? 'the document list failed'
      : 'the first company and trust have no documents';
    p.untried('documentDetails', why);
    p.untried('attachmentLink', why);
    return;
  }
  const doc = await p.call(
    'documentDetails',
    { owner: first.owner, params: { documentId: first.id } },
    (body, label) => {
      const details = parse.document(body, label, first.owner);
      return {
        value: details,
        what: `document ${details.id}, ${plural(details.attachments.length, 'attachment')}`,
      };
    },
  );
  const attachment = doc?.attachments[0];
  if (!doc || !attachment) {
    p.untried(
      'attachmentLink',
      doc ? `document ${doc.id} has no attachment` : 'the document details failed',
    );
    return;
  }
  const params = { documentId: doc.id, attachmentId: attachment.id };
  await p.call('attachmentLink', { owner: first.owner, params }, (body, label) => {
    const link = parse.downloadLink(body, label);
    // The link itself is not fetched: the check reads no file.
    return { value: link, what: `a link on ${new URL(link.url).host}` };
  });
}

function noDetails(): CheckLine {
  return warn(
    'company details',
    'the company list answered without `details` although details=true was asked',
    '`.entity.json` will lack labels, clientNumber and superFundContactIds; tell the service provider.',
  );
}

/** The routes that change data: named, never called. */
function writeRoutes(http: ServiceHttp): CheckLine {
  const writes = ROUTE_NAMES.filter((name) => ROUTES[name].method !== 'GET' && name !== 'token');
  const ours = writes.filter(
    (name) => http.route(name).source === 'ours' && !http.route(name).overridden,
  );
  return ok(
    'routes that change data',
    `not tried, since check changes nothing: ${writes.join(', ')}` +
      (ours.length > 0
        ? `; the paths of ${ours.join(', ')} are our assumption ([ours]): a first \`docsync run --once\` on staging proves them`
        : ''),
    { routes: writes, ours },
  );
}
