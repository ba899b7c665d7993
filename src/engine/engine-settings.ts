/**
 * The engine's settings from the config: the one place that maps config keys to them. The
 * benches and the scenario tests take theirs from `defaultEngineSettings`, so they run with the
 * defaults production runs with rather than literals of their own that could drift.
 */
import { type Config, configSchema } from '../config/schema.js';
import type { EngineSettings } from './engine-deps.js';

/** Seconds the cursor steps back each cycle, for changes the service stamps slightly late. */
export const CURSOR_OVERLAP_SECONDS = 2;

type SettingsConfig = {
  readonly service: Pick<Config['service'], 'webUrl'>;
} & Pick<Config, 'onRemoteDelete' | 'safety' | 'queue'>;

export function engineSettings(
  config: SettingsConfig,
  utcOffsetMinutes = -new Date().getTimezoneOffset(),
): EngineSettings {
  return {
    webUrl: config.service.webUrl,
    onRemoteDelete: config.onRemoteDelete,
    maxDeletePercent: config.safety.maxDeletePercent,
    maxDeleteCount: config.safety.maxDeleteCount,
    concurrency: config.queue.concurrency,
    overlapSeconds: CURSOR_OVERLAP_SECONDS,
    utcOffsetMinutes,
  };
}

/** What a config that sets none of these keys gets, in UTC unless told otherwise. */
export function defaultEngineSettings(
  webUrl: string,
  overrides: Partial<EngineSettings> = {},
): EngineSettings {
  const { shape } = configSchema;
  const defaults = {
    service: { webUrl },
    onRemoteDelete: shape.onRemoteDelete.parse(undefined),
    safety: shape.safety.parse(undefined),
    queue: shape.queue.parse(undefined),
  };
  return { ...engineSettings(defaults, 0), ...overrides };
}
