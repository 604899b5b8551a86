/**
 * Test hooks, inert unless their variable is set (docs/testing.md): with `VARIABLE=N` in the environment, the N-th
 * `pauseForTest(VARIABLE, marker)` of the process prints `evalkit:<marker>` on stderr and never returns, so that a
 * crash test can kill the process exactly at that point of a write.
 */
const calls = new Map<string, number>();

export async function pauseForTest(variable: string, marker: string): Promise<void> {
  const at = Number(process.env[variable]);
  if (!(at > 0)) return;
  const n = (calls.get(variable) ?? 0) + 1;
  calls.set(variable, n);
  if (n !== at) return;
  process.stderr.write(`evalkit:${marker}\n`);
  await new Promise(() => setInterval(() => {}, 60_000));
}
