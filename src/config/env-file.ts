/**
 * The environment file beside the configuration (`docsync.env`): `KEY=value` lines, `#`
 * comments, values optionally in quotes; the subset of systemd's `EnvironmentFile=` syntax that
 * `docsync init` writes, so one file serves the units and a command run by hand.
 */
import { readFileSync } from 'node:fs';
import type { ConfigProblem } from '../domain/errors.js';

export interface EnvFile {
  readonly values: Readonly<Record<string, string>>;
  /** Lines that are not `KEY=value`, and `DOCSYNC_` names docsync does not read. */
  readonly problems: readonly ConfigProblem[];
  /** The file is there but this user may not read it (a root-only file under systemd). */
  readonly unreadable: boolean;
}

const NONE: EnvFile = { values: {}, problems: [], unreadable: false };

export function readEnvFile(file: string, known: readonly string[]): EnvFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return NONE;
    if (code === 'EACCES' || code === 'EPERM') return { ...NONE, unreadable: true };
    return {
      ...NONE,
      problems: [{ key: '', message: `${file} cannot be read: ${(error as Error).message}` }],
    };
  }
  return parseEnvText(text, file, known);
}

export function parseEnvText(text: string, file: string, known: readonly string[]): EnvFile {
  const values: Record<string, string> = {};
  const problems: ConfigProblem[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) return;
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (!match) {
      problems.push({ key: '', message: `${file} line ${index + 1}: expected NAME=value` });
      return;
    }
    const [, name, value] = match as unknown as [string, string, string];
    // Other variables are the units' business (NODE_OPTIONS, ...); a misspelt one of ours is not.
    if (name.startsWith('DOCSYNC_') && !known.includes(name)) {
      problems.push({
        key: '',
        message: `${file} line ${index + 1}: ${name} is not a variable docsync reads (${known.join(', ')})`,
      });
      return;
    }
    values[name] = unquote(value.trim());
  });
  return { values, problems, unreadable: false };
}

function unquote(value: string): string {
  const quoted = /^"(.*)"$/.exec(value) ?? /^'(.*)'$/.exec(value);
  return quoted ? quoted[1]! : value;
}

/**
 * A value written by `docsync init`, so that docsync and systemd both read it back as it is:
 * bare when it is plain, else in single quotes (no escapes inside them for either), else in
 * double quotes when nothing in it is an escape for systemd. Null: no quoting can carry it.
 */
export function envLine(name: string, value: string): string | null {
  if (/[\r\n]/.test(value)) return null;
  if (/^[A-Za-z0-9_.:/+=@-]*$/.test(value)) return `${name}=${value}`;
  if (!value.includes("'")) return `${name}='${value}'`;
  if (!/["\\]/.test(value)) return `${name}="${value}"`;
  return null;
}
