/**
 * Turns zod issues (config files, service responses) into `key: expected …, got …` lines, in the manner of p-queue's option
 * errors, so an operator can fix every problem of a file in one pass. A schema that states its
 * own expectation (a message starting with "expected") is quoted as is; otherwise the wording
 * is derived from the issue code.
 */
import type * as z from 'zod';
import type { ConfigProblem } from './errors.js';
import { nearestName } from './nearest-name.js';

/**
 * `knownKeys`: the keys the schema knows at a path, so an unknown key is told the nearest of
 * them ("did you mean"); without it, an unknown key is only named.
 */
export function describeIssues(
  issues: readonly z.core.$ZodIssue[],
  knownKeys?: (path: readonly PropertyKey[]) => readonly string[],
): ConfigProblem[] {
  return issues.flatMap((issue): ConfigProblem[] => {
    const key = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      const known = knownKeys?.(issue.path) ?? [];
      return issue.keys.map((unknown) => {
        const meant = nearestName(unknown, known);
        return {
          key: key ? `${key}.${unknown}` : unknown,
          message: meant ? `unknown key; did you mean "${meant}"?` : 'unknown key',
        };
      });
    }
    return [{ key, message: describeOne(issue) }];
  });
}

function describeOne(issue: z.core.$ZodIssue): string {
  const got = `got ${show(issue.input)}`;
  // A missing value fails a union (e.g. "a string or a number") as much as a plain type.
  const typeCheck = issue.code === 'invalid_type' || issue.code === 'invalid_union';
  if (typeCheck && issue.input === undefined) {
    // A schema may say how else the value can be given ("required (or set …)").
    return issue.message.startsWith('required') ? issue.message : 'required';
  }
  if (issue.message.startsWith('expected')) {
    return issue.message.includes(', got ') || issue.message.includes(' got ')
      ? issue.message
      : `${issue.message}, ${got}`;
  }
  switch (issue.code) {
    case 'invalid_type':
      return `expected ${withArticle(issue.expected)}, ${got}`;
    case 'too_small':
      return `expected ${issue.origin === 'string' ? 'a non-empty string' : `a number from ${issue.minimum} and up`}, ${got}`;
    case 'too_big':
      return `expected a number up to ${issue.maximum}, ${got}`;
    case 'invalid_value':
      return `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}, ${got}`;
    default:
      return `${issue.message}, ${got}`;
  }
}

function withArticle(expected: string): string {
  if (expected === 'int') return 'an integer';
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
