/**
 * What `docsync check` reports: one line per thing checked, each `ok` (nothing to do), `warn`
 * (worth a look; docsync still runs), `fail` (docsync cannot work as configured) or `untried`
 * (not checked, and so not known to work: a route with nothing to try it on, a route that writes),
 * with a hint that says what to do. The command exits 1 when any line fails.
 */
import { ExitCode } from './exit-codes.js';

export type CheckResult = 'ok' | 'warn' | 'fail' | 'untried';

export interface CheckLine {
  /** What was checked: `configuration`, `token`, `GET /cas/companies`, `inotify watches`... */
  readonly topic: string;
  readonly result: CheckResult;
  /** What was found, in one sentence. */
  readonly message: string;
  /** What to do about it; on every warn and fail, and on what was not tried but is needed. */
  readonly hint?: string;
  /** Figures for machines (`--json`): a route's status, count and time, a limit, a skew. */
  readonly data?: Readonly<Record<string, unknown>>;
}

export const ok = (topic: string, message: string, data?: CheckLine['data']): CheckLine => ({
  topic,
  result: 'ok',
  message,
  ...(data ? { data } : {}),
});

export const warn = (
  topic: string,
  message: string,
  hint: string,
  data?: CheckLine['data'],
): CheckLine => ({ topic, result: 'warn', message, hint, ...(data ? { data } : {}) });

export const fail = (
  topic: string,
  message: string,
  hint: string,
  data?: CheckLine['data'],
): CheckLine => ({ topic, result: 'fail', message, hint, ...(data ? { data } : {}) });

/** Not checked, and so not known either way; `hint` says how to try it, when it matters. */
export const untried = (
  topic: string,
  message: string,
  hint?: string,
  data?: CheckLine['data'],
): CheckLine => ({
  topic,
  result: 'untried',
  message,
  ...(hint ? { hint } : {}),
  ...(data ? { data } : {}),
});

export function checkExitCode(lines: readonly CheckLine[]): ExitCode {
  return lines.some((line) => line.result === 'fail') ? ExitCode.CouldNotRun : ExitCode.InSync;
}

export function checkCounts(lines: readonly CheckLine[]): Record<CheckResult, number> {
  const counts: Record<CheckResult, number> = { ok: 0, warn: 0, fail: 0, untried: 0 };
  for (const line of lines) counts[line.result] += 1;
  return counts;
}
