// The catalogue of mutants (test/mutants/catalogue/*.ts) read without a TypeScript loader, and a
// mutant put into a source text. Shared by the runner (mutants-cli.mjs, plain Node) and the test
// that keeps the catalogue applicable (catalogue.test.ts).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** How many times `find` occurs in `text` (without overlaps). */
export function occurrences(text, find) {
  if (find === '') return 0;
  let count = 0;
  for (let at = text.indexOf(find); at !== -1; at = text.indexOf(find, at + find.length)) count++;
  return count;
}

/** `source` with the mutant in; throws when its `find` does not occur exactly once (stale). */
export function applyMutant(source, mutant) {
  const count = occurrences(source, mutant.find);
  if (count !== 1)
    throw new Error(
      `mutant ${mutant.id} is stale: its find occurs ${count} times in ${mutant.file} (once expected)`,
    );
  const at = source.indexOf(mutant.find);
  return source.slice(0, at) + mutant.replace + source.slice(at + mutant.find.length);
}

/**
 * Every mutant of `<root>/test/mutants/catalogue/`, by id. A file holds one object literal as its
 * default export and imports nothing but types, so it is read by stripping its types.
 */
export function loadCatalogue(root) {
  const dir = path.join(root, 'test/mutants/catalogue');
  const mutants = [];
  for (const name of readdirSync(dir)
    .filter((n) => n.endsWith('.ts'))
    .sort()) {
    const source = readFileSync(path.join(dir, name), 'utf8');
    const js = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    }).outputText;
    if (/^\s*import\s/m.test(js) || !/^export default /m.test(js))
      throw new Error(
        `${name}: a mutant file exports one object by default and imports types only`,
      );
    const mutant = new Function(js.replace(/^export default /m, 'return '))();
    mutants.push({ ...mutant, source: name });
  }
  return mutants;
}
