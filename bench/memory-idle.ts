import type { BenchResult } from './lib/result.js';

export async function memoryIdle(): Promise<BenchResult> {
  throw new Error('not built yet');
}
