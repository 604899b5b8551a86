// A generated Inspect log of a run that finished or not (status "success", "error", "cancelled"), for the tests of
// unfinished runs on the leaderboard, in compare and in the viewer; and where the real ones are in
// ../shared/reference.

/** The real Inspect log of a run that errored (mockllm, popularity). */
export const ERRORED = 'peers-wild-2/inspect_ai/inspectai-tests-evalset-error';
/** The real Inspect log of a run that was cancelled after 3 of 100 samples (popularity). */
export const CANCELLED = 'peers-wild-2/inspect_ai/UKGovernmentBEIS__inspect_ai__popularity-cancelled';

/** An Inspect log of `scored` samples out of `planned`, with the given status and per-sample values. */
export function inspectLog(
  model: string,
  status: string,
  values: number[],
  planned: number,
  stderr: number,
): object {
  const mean = values.reduce((a, b) => a + b, 0) / Math.max(values.length, 1);
  return {
    version: 2,
    status,
    eval: {
      run_id: `run-${model}`,
      task_id: `task-${model}`,
      task: 'popularity',
      created: '2025-01-02T03:04:05+00:00',
      model,
      dataset: { samples: planned },
    },
    results: {
      total_samples: planned,
      completed_samples: values.length,
      scores: [
        {
          name: 'match',
          scorer: 'match',
          scored_samples: values.length,
          metrics: {
            accuracy: { name: 'accuracy', value: mean },
            stderr: { name: 'stderr', value: stderr },
          },
        },
      ],
    },
    ...(status === 'error' ? { error: { message: 'RuntimeError: the provider went away' } } : {}),
    samples: values.map((v, i) => ({
      id: i + 1,
      epoch: 1,
      input: `q${i + 1}`,
      target: 'a',
      scores: { match: { value: v === 1 ? 'C' : 'I' } },
    })),
  };
}
