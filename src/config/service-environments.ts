/**
 * The service's known environments, so that moving from staging to production is one key
 * (`service.environment`) instead of URLs edited by hand. An explicit `service.baseUrl` or
 * `service.webUrl` still wins over the environment's.
 *
 * Where each URL comes from (api.md's marks):
 * - the API base URLs are [public]: the service's documentation names both;
 * - the OAuth URLs are not separate: `{baseUrl}/oauth/authorize` and `{baseUrl}/oauth/token`
 *   [public], and `service.routes.authorize` / `service.routes.token` correct their paths;
 * - the web application URLs (deep links) are [ours]: neither source names them, so
 *   `docsync check` opens the configured one and says when it does not answer.
 */
export const SERVICE_ENVIRONMENT_NAMES = ['staging', 'production'] as const;

export type ServiceEnvironment = (typeof SERVICE_ENVIRONMENT_NAMES)[number];

export interface EnvironmentUrls {
  readonly baseUrl: string;
  readonly webUrl: string;
}

export const SERVICE_ENVIRONMENTS: Readonly<Record<ServiceEnvironment, EnvironmentUrls>> = {
  staging: {
    baseUrl: 'https://api.staging.bgl360.com.au',
    webUrl: 'https://app.staging.bgl360.com.au',
  },
  production: {
    baseUrl: 'https://api.bgl360.com.au',
    webUrl: 'https://app.bgl360.com.au',
  },
};

export function isServiceEnvironment(value: unknown): value is ServiceEnvironment {
  return typeof value === 'string' && Object.hasOwn(SERVICE_ENVIRONMENTS, value);
}
