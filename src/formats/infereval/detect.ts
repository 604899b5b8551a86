// Telling infereval documents apart by their keys (robust to invalid documents).

/** Evaluation-shaped keys (an η also has `items`, so it is told apart first). */
export function looksLikeInferevalEvaluation(doc: Record<string, unknown>): boolean {
  return (
    'endorsement_config' in doc || 'benchmark_id' in doc || ('model' in doc && 'items' in doc && 'id' in doc)
  );
}

export function looksLikeInferevalBenchmark(doc: Record<string, unknown>): boolean {
  if (looksLikeInferevalEvaluation(doc)) return false;
  if ('bearers' in doc || 'analysts' in doc) return true;
  // A benchmark that lost its bearers/analysts: items whose first entry has analyst_verdicts but no model_verdict.
  const first = Array.isArray(doc.items) ? (doc.items[0] as Record<string, unknown> | undefined) : undefined;
  return (
    first !== undefined &&
    first !== null &&
    typeof first === 'object' &&
    'analyst_verdicts' in first &&
    !('model_verdict' in first) &&
    'id' in doc
  );
}
