/**
 * Before `docsync run` syncs anything (the daemon's start, `--once`): the state database and
 * the folder must be the configured service's (domain/service-identity.ts). One that names
 * another service stops the run with `OtherServiceError`; one that names none yet is claimed for
 * the configured service: a new state at its first run, before its first sync pulls anything,
 * and a state or a marker an older docsync wrote without the record, which is taken to be the
 * service it is configured for now (nothing else could tell).
 *
 * Nothing is claimed before the service has let docsync in: a run that stops because docsync
 * was never authorised (or its grant is refused) leaves neither the record in the state nor the
 * marker its first sync would write, so the folder and the state are as they were.
 */
import { otherService, serviceKey } from '../domain/service-identity.js';
import type { LocalStore } from '../local/local-store.js';
import type { Logger } from '../log/create-logger.js';
import { AuthRequiredError } from '../remote/api-error.js';
import type { SettingsRepo } from '../state/settings-repo.js';

export interface ServiceClaim {
  /** `service.baseUrl`. */
  readonly baseUrl: string;
  readonly statePath: string;
  readonly root: string;
  /** Record the service where none is named; a dry run only checks. */
  readonly record: boolean;
}

export async function claimService(
  deps: {
    readonly settings: Pick<SettingsRepo, 'serviceUrl' | 'recordServiceUrl' | 'initialSyncDone'>;
    readonly local: Pick<LocalStore, 'markerService' | 'hasMarker' | 'writeMarker'>;
    readonly logger: Logger;
    /** A token the service accepts (the client's `tokens.accessToken()`). */
    readonly authorise: () => Promise<unknown>;
  },
  claim: ServiceClaim,
): Promise<void> {
  const { settings, local, logger } = deps;
  const service = serviceKey(claim.baseUrl);
  const inState = settings.serviceUrl();
  const stateError = otherService(
    { kind: 'state', statePath: claim.statePath },
    inState,
    claim.baseUrl,
  );
  if (stateError) throw stateError;
  const marked = await local.hasMarker();
  const inMarker = marked ? await local.markerService() : null;
  const folderError = otherService({ kind: 'folder', root: claim.root }, inMarker, claim.baseUrl);
  if (folderError) throw folderError;
  if (!claim.record) return;
  // The first sync writes the marker (and the record below names the service): both wait for
  // the grant to be good.
  const writes = inState === null || (marked && inMarker === null) || !settings.initialSyncDone();
  if (writes) await grantHeld(deps.authorise);
  if (inState === null) {
    settings.recordServiceUrl(service);
    // A state synced before docsync recorded this is taken to be the configured service's: say
    // so, since a state of another service would only show itself in what the sync does.
    if (settings.initialSyncDone())
      logger.info(
        { service, statePath: claim.statePath },
        'the state database named no service (written by an older docsync); it is now recorded as synced with the configured service',
      );
  }
  // The first sync writes the marker with the service; an older one gets the line added.
  if (marked && inMarker === null) await local.writeMarker();
}

/**
 * Throws when the service will not let docsync in. Any other failure (the service unreachable)
 * is the sync's to meet and report: the daemon waits for the service, it does not stop.
 */
async function grantHeld(authorise: () => Promise<unknown>): Promise<void> {
  try {
    await authorise();
  } catch (error) {
    if (error instanceof AuthRequiredError) throw error;
  }
}
