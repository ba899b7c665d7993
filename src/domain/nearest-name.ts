/**
 * The known name a mistyped one most likely meant, for "did you mean" in an error: the one the
 * fewest single-letter edits away (editDistance), letter case ignored, when it is close enough to
 * be a slip rather than another word (at most a third of the name's letters, and at least one).
 * Ties go to the first in `known`. Pure.
 */
export function nearestName(typed: string, known: readonly string[]): string | null {
  const word = typed.toLowerCase();
  let best: { name: string; distance: number } | null = null;
  for (const name of known) {
    const distance = editDistance(word, name.toLowerCase());
    if (best === null || distance < best.distance) best = { name, distance };
  }
  if (best === null || best.name === typed) return null;
  const allowed = Math.max(1, Math.floor(Math.max(typed.length, best.name.length) / 3));
  return best.distance <= allowed ? best.name : null;
}

/**
 * Insertions, deletions, substitutions and swaps of two neighbouring letters (the commonest
 * slip: "sheduel") that turn `a` into `b`: the optimal string alignment distance.
 */
export function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}
