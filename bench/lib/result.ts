/** One line of the result table: docsync's figure beside the floor measured in the same run. */
export interface ResultRow {
  readonly bench: string;
  readonly measure: string;
  readonly figure: string;
  readonly floor: string;
  readonly target: string;
  readonly verdict: 'pass' | 'FAIL' | 'info';
}

export interface BenchResult {
  readonly rows: readonly ResultRow[];
  /** How it was measured and what the numbers mean; goes into docs/benchmarks.md. */
  readonly notes: readonly string[];
}

export const verdict = (ok: boolean): 'pass' | 'FAIL' => (ok ? 'pass' : 'FAIL');
