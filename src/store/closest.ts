/** "Did you mean": the known names closest to an unknown one (edit distance, case-insensitive; substrings first). */

/** Levenshtein distance (insertions, deletions, substitutions each cost 1). */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** Up to `limit` known names ordered by closeness to `name`: names containing it (or contained in it) first. */
export function closestNames(name: string, known: readonly string[], limit = 5): string[] {
  const wanted = name.toLowerCase();
  return known
    .map((k) => {
      const lower = k.toLowerCase();
      const contains = lower.includes(wanted) || wanted.includes(lower);
      return { k, score: (contains ? 0 : 1000) + editDistance(wanted, lower) };
    })
    .sort((x, y) => x.score - y.score || x.k.localeCompare(y.k))
    .slice(0, limit)
    .map((x) => x.k);
}
