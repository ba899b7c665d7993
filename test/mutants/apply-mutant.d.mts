import type { Mutant } from './mutant.js';

export function occurrences(text: string, find: string): number;
export function applyMutant(source: string, mutant: Mutant): string;
/** The catalogue's mutants, each with the name of its file. */
export function loadCatalogue(root: string): (Mutant & { readonly source: string })[];
