/**
 * Values of `config/docsync.example.json` that only stand for the user's own: `your-client-id`,
 * "set DOCSYNC_WEBHOOK_SECRET instead of writing it here", `https://docsync.example.com/...`.
 * Left in a copied file they pass every type check, and docsync would then fail far from the
 * cause (a refused login, every webhook refused as badly signed, a link to nowhere); so each is
 * reported with its key, beside the file's other problems.
 */
import type { ConfigProblem } from '../domain/errors.js';
import { ENV_FILE_BESIDE } from './config-location.js';

/** The domains RFC 2606 reserves for documentation, which the example's URLs use. */
const EXAMPLE_HOST = /(^|\.)example\.(com|net|org)$/i;

/** What to do about `value` when it is a placeholder; null when it is not one. */
function advice(value: string): string | null {
  const fromEnv = /^set (DOCSYNC_[A-Z_]+) instead\b/.exec(value);
  if (fromEnv) {
    return `set ${fromEnv[1]} (in ${ENV_FILE_BESIDE}) and remove this key, or write the value here`;
  }
  if (/^your[-_ ]/i.test(value)) return 'write your own value here';
  if (/^https?:\/\//i.test(value) && EXAMPLE_HOST.test(hostOf(value)))
    return 'write your own URL here, or remove the key';
  return null;
}

function hostOf(url: string): string {
  // A template such as `.../open?path={path}` is a valid URL too; a value that is not one at all
  // is the schema's to report.
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}

/** Every string in the (raw) configuration that is still one of the example's placeholders. */
export function placeholderProblems(raw: unknown, key = ''): ConfigProblem[] {
  if (typeof raw === 'string') {
    const todo = advice(raw);
    return todo
      ? [{ key, message: `${JSON.stringify(raw)} is the example's placeholder: ${todo}` }]
      : [];
  }
  if (typeof raw !== 'object' || raw === null) return [];
  return Object.entries(raw).flatMap(([name, value]) =>
    placeholderProblems(value, key ? `${key}.${name}` : name),
  );
}
