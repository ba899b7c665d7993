/**
 * Which service a state database and a folder were synced with. Their ids are that service's:
 * synced against another (staging's state with `service.environment` flipped to production),
 * every document the state knows is missing there, and the sync would take them for deleted in
 * the service and move the folder's copies to the trash by the thousand. So the state records
 * `service.baseUrl` (settings `serviceUrl`) and `.docsync-root` names it, and `docsync run`
 * refuses to start on either when it names another service.
 */
import { DocsyncError } from './errors.js';

/** Where the other service is named: the state database, or the folder's `.docsync-root`. */
export type ServiceRecordPlace =
  | { readonly kind: 'state'; readonly statePath: string }
  | { readonly kind: 'folder'; readonly root: string };

/**
 * The state or the folder belongs to another service than `service.baseUrl` names. Nothing was
 * synced, requested or changed; the message says which key to set back, or to give the new
 * service its own state and folder.
 */
export class OtherServiceError extends DocsyncError {
  constructor(
    readonly place: ServiceRecordPlace,
    /** The service it was synced with. */
    readonly recorded: string,
    /** `service.baseUrl`. */
    readonly configured: string,
  ) {
    super('OTHER_SERVICE', otherServiceSentence(place, recorded, configured));
  }
}

/**
 * The form a service's URL is recorded and compared in: scheme, host, port and path, without a
 * trailing slash (`https://API.example/` and `https://api.example` are one service).
 */
export function serviceKey(baseUrl: string): string {
  const url = new URL(baseUrl);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** The error when `recorded` names another service than `configured`; null when it is the same or none. */
export function otherService(
  place: ServiceRecordPlace,
  recorded: string | null,
  configured: string,
): OtherServiceError | null {
  if (recorded === null || sameKey(recorded) === serviceKey(configured)) return null;
  return new OtherServiceError(place, recorded, serviceKey(configured));
}

/** A recorded URL a person may have edited (`.docsync-root`): compared as `serviceKey` when it is a URL. */
function sameKey(recorded: string): string {
  try {
    return serviceKey(recorded);
  } catch {
    return recorded;
  }
}

function otherServiceSentence(
  place: ServiceRecordPlace,
  recorded: string,
  configured: string,
): string {
  const what =
    place.kind === 'state'
      ? `The state database ${place.statePath} (state.path) was synced with ${recorded}`
      : `The folder ${place.root} (store.root) was synced with ${recorded} (its .docsync-root says so)`;
  const own = place.kind === 'state' ? 'state.path and store.root' : 'store.root and state.path';
  return (
    `${what}, but service.baseUrl is ${configured}: its ids are the other service's, and a sync ` +
    'would take every document it knows for deleted. Set service.environment (or ' +
    `service.baseUrl) back to the service it was synced with, or give ${configured} its own ` +
    `${own} (docs/real-service.md, "A state of another service"). Nothing was sent or synced.`
  );
}
