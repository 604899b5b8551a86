// Shared by the runner tests: an η without what legitimately differs between two runs of the same samples.
export function stableEta(eta: any): any {
  const copy = structuredClone(eta);
  delete copy.started_at;
  delete copy.finished_at;
  for (const it of copy.items) for (const s of it.samples) delete s.wall_time_ms;
  return copy;
}
