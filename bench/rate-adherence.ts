import type { BenchResult } from './lib/result.js';

export async function rateAdherence(): Promise<BenchResult> {
  throw new Error('not built yet');
}
