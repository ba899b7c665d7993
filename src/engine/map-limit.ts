/**
 * Maps with at most `limit` calls in flight, keeping the input order in the result. After a
 * call fails no new one starts, and the failure is thrown only once the calls in flight have
 * settled: nothing of a cycle may still be writing after the cycle has ended.
 */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | null = null;
  const worker = async () => {
    while (next < items.length && failure === null) {
      const index = next++;
      try {
        results[index] = await fn(items[index]!);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, worker));
  if (failure !== null) throw (failure as { error: unknown }).error;
  return results;
}
