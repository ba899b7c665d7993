import type { BenchResult } from './lib/result.js';

export async function quietCycle(): Promise<BenchResult> {
  throw new Error('not built yet');
}
