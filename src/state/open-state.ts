/**
 * The state database as a command opens it: as it is, created, or upgraded; refused when it is
 * another service's; with the login from DOCSYNC_REFRESH_TOKEN stored. Apart from the
 * composition root, so a command that only reads the state (`docsync status`) does not load the
 * HTTP client.
 */
import { otherService } from '../domain/service-identity.js';
import { explainStateFailure } from './state-failure.js';
import { StateStore } from './state-store.js';

/** What of the configuration the state is opened with (a part of `Config`). */
export interface StateConfig {
  readonly state: { readonly path: string };
  readonly service: { readonly baseUrl: string; readonly refreshToken?: string | undefined };
}

/**
 * `existing`: open the state database as it is (commands that only read it); `upgrade: false`:
 * create a missing one, but take one that is there as it is (open-database.ts).
 * `sameService`: refuse a state of another service (domain/service-identity.ts) before anything
 * is stored in it or a client can send its token: that service's login must not go to the
 * configured one, nor its ids be synced there.
 */
export function openState(
  config: StateConfig,
  options: { existing?: boolean; upgrade?: boolean; sameService?: boolean } = {},
): StateStore {
  const state = StateStore.open(config.state.path, {
    existing: options.existing ?? false,
    upgrade: options.upgrade ?? true,
  });
  try {
    if (options.sameService) {
      const other = otherService(
        { kind: 'state', statePath: config.state.path },
        state.settings.serviceUrl(),
        config.service.baseUrl,
      );
      if (other) throw other;
    }
    // DOCSYNC_REFRESH_TOKEN: stored unless it is the seed we already took (and since rotated).
    if (config.service.refreshToken) state.tokens.seedRefreshToken(config.service.refreshToken);
    return state;
  } catch (error) {
    state.close();
    throw explainStateFailure(error, config.state.path);
  }
}
