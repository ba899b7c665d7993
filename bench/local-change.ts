import type { BenchResult } from './lib/result.js';

export async function localChange(): Promise<BenchResult> {
  throw new Error('not built yet');
}
