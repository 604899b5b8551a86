/**
 * A small, fast seeded PRNG for resampling where no outside compatibility is needed: sfc32 (Chris Doty-Humphrey's
 * Small Fast Counting generator), its 128-bit state filled from the seed by SplitMix32 steps.
 * Returns uniform doubles in [0, 1) with 32 random bits each.
 */
export function createRng(seed: number): () => number {
  let s = seed >>> 0 || 0;
  // A high word of the seed (for seeds beyond 2^32) is mixed in so that nearby large seeds differ.
  const high = Math.floor(Math.abs(seed) / 4294967296) >>> 0;
  const splitmix = (): number => {
    s = (s + 0x9e3779b9) | 0;
    let z = s ^ high;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = splitmix();
  let b = splitmix();
  let c = splitmix();
  let d = splitmix();
  const next = (): number => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 12; i++) next();
  return next;
}

/** A uniform integer in [0, n) from a [0, 1) generator. */
export function randomInt(rng: () => number, n: number): number {
  return Math.floor(rng() * n);
}
