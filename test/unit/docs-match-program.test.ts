/**
 * The docs are the program's: what README.md and docs/ say about the command line, the exit
 * codes and the configuration is held to the program's own lists, both ways, so that neither
 * can change alone.
 *
 * - Options: every option of every command (`--help` shows them) is named in the doc that is
 *   that command's reference, and every `docsync <command> … --option` the docs write is an
 *   option of that command.
 * - Exit codes: every table and list of `run --once`'s exit codes in the docs, and `run
 *   --help`, give exactly the codes of domain/exit-codes.ts.
 * - Configuration keys: the keys docs/configuration.md names are the schema's.
 * - Citations: no doc sends a reader to a file that is not in the repository (`daemon.md`,
 *   `api.md`: the contract is docs/api-contract.md) or to an issue number, which has no
 *   tracker a reader can follow.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import type * as z from 'zod';
import { configSchema } from '../../src/config/schema.js';
import { ExitCode } from '../../src/domain/exit-codes.js';
import { buildProgram } from '../../src/program.js';
import { capturedTerminal } from '../helpers/run-cli.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const DOCS = [
  'README.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The program as `docsync` builds it, each command by its path (`deletes approve`). */
function commands(): Map<string, Command> {
  const { program } = buildProgram(capturedTerminal().terminal);
  const all = new Map<string, Command>();
  const walk = (command: Command, at: string) => {
    all.set(at, command);
    for (const sub of command.commands) walk(sub, at ? `${at} ${sub.name()}` : sub.name());
  };
  walk(program, '');
  return all;
}

/** `--option` of each option of a command, and its `-o` where it has one. */
function flagsOf(command: Command): string[] {
  return command.options.flatMap((o) => [o.long, o.short].filter((f): f is string => !!f));
}

/** Where each command's options are explained; the rest are in docs/commands.md. */
const REFERENCE: Readonly<Record<string, readonly string[]>> = {
  init: ['docs/configuration.md'],
  check: ['docs/real-service.md', 'docs/commands.md'],
  simulator: ['docs/development.md', 'docs/real-service.md'],
};

describe('the options of every command', () => {
  it('are each named in the doc that is that command’s reference', () => {
    const missing: string[] = [];
    for (const [at, command] of commands()) {
      const top = at.split(' ')[0]!;
      const docs = REFERENCE[top] ?? ['docs/commands.md'];
      const text = docs.map(read).join('\n');
      for (const option of command.options) {
        const named = [option.long, option.short].some(
          (flag) => flag && new RegExp(`(^|[^\\w-])${flag}(?![\\w-])`).test(text),
        );
        if (!named) missing.push(`docsync ${at} ${option.flags}: not in ${docs.join(' or ')}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('are the only ones the docs give a command', () => {
    const all = commands();
    const globals = flagsOf(all.get('')!);
    const unknown: string[] = [];
    for (const file of DOCS) {
      for (const line of commandLines(read(file))) {
        const words = line.split(/\s+/);
        // The longest run of words that names a command: `deletes approve`, else `deletes`.
        let at = '';
        let used = 0;
        for (let n = 1; n <= words.length; n += 1) {
          const candidate = words.slice(0, n).join(' ');
          if (all.has(candidate)) [at, used] = [candidate, n];
          else if (!/^[a-z][\w-]*$/.test(words[n - 1]!)) break;
        }
        if (at === '') continue;
        const own = [...flagsOf(all.get(at)!), ...globals, '--help', '-h'];
        // `api`'s operations take their own words, options among them (`--file`).
        for (const word of words.slice(used)) {
          const flag = /^(--?[a-zA-Z][\w-]*)/.exec(word)?.[1];
          if (flag && !own.includes(flag)) unknown.push(`${file}: docsync ${line}: ${flag}`);
        }
      }
    }
    expect(unknown).toEqual([]);
  });
});

/**
 * What follows `docsync ` (or `node dist/cli.js `) in the docs' commands: in code spans, and on
 * the lines of code blocks, up to a comment, a pipe, `&&` or the span's end.
 */
function commandLines(text: string): string[] {
  const code = [
    ...[...text.matchAll(/```[a-z]*\n([\s\S]*?)```/g)].flatMap(([, block]) => block!.split('\n')),
    ...[...text.replace(/```[\s\S]*?```/g, '').matchAll(/`([^`\n]+)`/g)].map(([, span]) => span!),
  ];
  const lines: string[] = [];
  for (const piece of code) {
    for (const match of piece.matchAll(
      /(?:^|[\s(])(?:docsync|node dist\/cli\.js)\s+([^#|&;`]*)/g,
    )) {
      // `sudo -u docsync docsync check`: the user's name, then the command.
      const rest = match[1]!.replace(/^(docsync\s+)+/, '').trim();
      if (rest !== '') lines.push(rest);
    }
  }
  return lines;
}

describe('the exit codes', () => {
  const codes = Object.values(ExitCode).sort();

  it('of `run --once`, as `run --help` lists them, are the program’s', () => {
    const once = commands()
      .get('run')!
      .options.find((o) => o.long === '--once')!;
    const listed = [...once.description.matchAll(/\b(\d) [a-z]/g)].map(([, n]) => Number(n));
    expect(listed).toEqual(codes);
  });

  it('in every table and list of the docs are the program’s', () => {
    const found: string[] = [];
    const wrong: string[] = [];
    for (const file of DOCS) {
      const text = read(file);
      // A table headed `| Code | Meaning |`.
      for (const [table] of text.matchAll(/^\| Code \| Meaning \|\n(?:\|.*\|\n?)+/gm)) {
        const listed = [...table.matchAll(/^\| (\d+) \|/gm)].map(([, n]) => Number(n));
        found.push(file);
        if (String(listed) !== String(codes)) wrong.push(`${file}: table ${listed}`);
      }
      // A paragraph that starts "Exit codes": `run --once`'s, or `check`'s (0 and 1).
      for (const [paragraph] of text.matchAll(/^Exit codes[^\n]*(?:\n[^\n]+)*/gm)) {
        const listed = [...paragraph.matchAll(/\*\*(\d+)\*\*/g)].map(([, n]) => Number(n));
        const expected = /`docsync check`/.test(paragraph.split(':')[0]!)
          ? [ExitCode.InSync, ExitCode.CouldNotRun]
          : codes;
        found.push(file);
        if (String(listed) !== String(expected))
          wrong.push(`${file}: "${paragraph.slice(0, 40)}…" ${listed}`);
      }
    }
    expect(wrong).toEqual([]);
    // The README's table, commands.md's reference and attention.md's section at least.
    expect(new Set(found)).toEqual(new Set(['README.md', 'docs/commands.md', 'docs/attention.md']));
  });
});

/** Every key a configuration file may hold, dotted, from the schema itself. */
function schemaKeys(schema: z.core.$ZodType, prefix = ''): string[] {
  const def = schema._zod.def as unknown as {
    type: string;
    shape?: Record<string, z.core.$ZodType>;
    innerType?: z.core.$ZodType;
  };
  if (def.type === 'object' && def.shape) {
    return Object.entries(def.shape).flatMap(([key, child]) =>
      schemaKeys(child, `${prefix}${key}.`),
    );
  }
  if (def.innerType && def.type !== 'pipe') return schemaKeys(def.innerType, prefix);
  return [prefix.slice(0, -1)];
}

describe('the configuration keys of docs/configuration.md', () => {
  it('are the schema’s, in the table and in the text around it, both ways', () => {
    const keys = schemaKeys(configSchema);
    const sections = new Set(keys.map((k) => k.split('.')[0]!));
    const text = read('docs/configuration.md');
    const named = new Set(
      [...text.matchAll(/`([a-zA-Z]+(?:\.[a-zA-Z]+)*)`/g)]
        .map(([, key]) => key!)
        .filter(
          (key) => sections.has(key.split('.')[0]!) && (key.includes('.') || keys.includes(key)),
        ),
    );
    expect([...named].filter((key) => !keys.includes(key)).sort()).toEqual([]);
    expect(keys.filter((key) => !named.has(key)).sort()).toEqual([]);
  });
});

describe('what the docs cite', () => {
  it('is in the repository: no daemon.md or api.md without a copy in docs/, no link out of it', () => {
    const outside: string[] = [];
    for (const file of DOCS) {
      const text = read(file);
      for (const [, name] of text.matchAll(/(?<![\w/-])((?:daemon|api)\.md)\b/g)) {
        if (!existsSync(path.join(ROOT, 'docs', name!))) outside.push(`${file}: ${name}`);
      }
      for (const [, target] of text.matchAll(/\]\(([^)\s#]+)[^)]*\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        const into = path.resolve(ROOT, path.dirname(file), target!);
        if (path.relative(ROOT, into).startsWith('..') || !existsSync(into))
          outside.push(`${file}: ${target}`);
      }
    }
    expect(outside).toEqual([]);
  });

  it('from the systemd units is a section and a file that are there', () => {
    const wrong: string[] = [];
    for (const unit of readdirSync(path.join(ROOT, 'systemd'))) {
      const text = read(`systemd/${unit}`);
      for (const [, cited, heading] of text.matchAll(/see (README|[\w/.-]+\.md),? "([^"]+)"/g)) {
        const file = cited === 'README' ? 'README.md' : cited!;
        const headings = existsSync(path.join(ROOT, file))
          ? [...read(file).matchAll(/^#+ (.+)$/gm)].map(([, h]) => h)
          : [];
        if (!headings.includes(heading)) wrong.push(`${unit}: ${cited} "${heading}"`);
      }
      for (const [, file] of text.matchAll(
        /file:\/\/\/usr\/local\/lib\/node_modules\/docsync\/(\S+)/g,
      )) {
        if (!existsSync(path.join(ROOT, file!))) wrong.push(`${unit}: ${file}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('is no issue number, which a reader has no tracker to follow', () => {
    const cited: string[] = [];
    for (const file of DOCS) {
      read(file)
        .split('\n')
        .forEach((line, index) => {
          for (const [match] of line.matchAll(/\b[Ii]ssues? \d+|(?<![\w&/])#\d+\b/g))
            cited.push(`${file}:${index + 1}: ${match}`);
        });
    }
    expect(cited).toEqual([]);
  });
});
