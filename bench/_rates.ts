// Shared by the schema benchmarks: interleaved timing rounds, so a noisy moment hits every task alike.

/** Calls per second of each task: `rounds` interleaved rounds of `calls` calls, median per task. */
export function medianRates(
  tasks: Record<string, () => void>,
  calls: number,
  rounds: number,
): Record<string, number> {
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(tasks).map((k) => [k, []]));
  for (let r = 0; r <= rounds; r++) {
    for (const [name, fn] of Object.entries(tasks)) {
      const start = performance.now();
      for (let i = 0; i < calls; i++) fn();
      if (r > 0) samples[name].push((calls / (performance.now() - start)) * 1000); // round 0 warms up
    }
  }
  return Object.fromEntries(
    Object.entries(samples).map(([k, xs]) => [k, [...xs].sort((a, b) => a - b)[xs.length >> 1]]),
  );
}
