/**
 * MT19937 seeded and consumed exactly as CPython's `random.Random` does, so that a seed gives the same draws
 * as the Python reference implementation: `random()`, `getrandbits(k)`, `_randbelow(n)` and `sample(pop, k)`.
 * Written from the published MT19937 algorithm (Matsumoto & Nishimura, 1998, `init_by_array` variant) and the
 * documented behaviour of CPython's random module.
 */
const N = 624;
const M = 397;
const UPPER_MASK = 0x80000000;
const LOWER_MASK = 0x7fffffff;
const MATRIX_A = 0x9908b0df;

export class MersenneTwister {
  private readonly mt = new Uint32Array(N);
  private index = N + 1;

  /** Seeds like `random.Random(seed)` for an integer seed (negative seeds use their absolute value). */
  constructor(seed: number | bigint = 0) {
    this.seed(seed);
  }

  seed(seed: number | bigint): void {
    let value: bigint;
    if (typeof seed === 'bigint') value = seed;
    else {
      if (!Number.isInteger(seed))
        throw new RangeError(`MersenneTwister seed must be an integer, got ${seed}`);
      value = BigInt(seed);
    }
    if (value < 0n) value = -value;
    const key: number[] = [];
    while (value > 0n) {
      key.push(Number(value & 0xffffffffn));
      value >>= 32n;
    }
    if (key.length === 0) key.push(0);
    this.initByArray(key);
  }

  private initGenrand(s: number): void {
    const mt = this.mt;
    mt[0] = s >>> 0;
    for (let i = 1; i < N; i++) {
      const prev = mt[i - 1]!;
      mt[i] = (Math.imul(1812433253, prev ^ (prev >>> 30)) + i) >>> 0;
    }
    this.index = N;
  }

  private initByArray(key: number[]): void {
    const mt = this.mt;
    this.initGenrand(19650218);
    let i = 1;
    let j = 0;
    for (let k = Math.max(N, key.length); k > 0; k--) {
      const prev = mt[i - 1]!;
      mt[i] = ((mt[i]! ^ Math.imul(prev ^ (prev >>> 30), 1664525)) + key[j]! + j) >>> 0;
      i++;
      j++;
      if (i >= N) {
        mt[0] = mt[N - 1]!;
        i = 1;
      }
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      const prev = mt[i - 1]!;
      mt[i] = ((mt[i]! ^ Math.imul(prev ^ (prev >>> 30), 1566083941)) - i) >>> 0;
      i++;
      if (i >= N) {
        mt[0] = mt[N - 1]!;
        i = 1;
      }
    }
    mt[0] = UPPER_MASK;
    this.index = N;
  }

  private twist(): void {
    const mt = this.mt;
    let kk = 0;
    for (; kk < N - M; kk++) {
      const y = (mt[kk]! & UPPER_MASK) | (mt[kk + 1]! & LOWER_MASK);
      mt[kk] = mt[kk + M]! ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
    }
    for (; kk < N - 1; kk++) {
      const y = (mt[kk]! & UPPER_MASK) | (mt[kk + 1]! & LOWER_MASK);
      mt[kk] = mt[kk + (M - N)]! ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
    }
    const y = (mt[N - 1]! & UPPER_MASK) | (mt[0]! & LOWER_MASK);
    mt[N - 1] = mt[M - 1]! ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
    this.index = 0;
  }

  /** The next tempered 32-bit output (`genrand_uint32`). */
  nextUint32(): number {
    if (this.index >= N) this.twist();
    let y = this.mt[this.index++]!;
    y ^= y >>> 11;
    y = (y ^ ((y << 7) & 0x9d2c5680)) >>> 0;
    y = (y ^ ((y << 15) & 0xefc60000)) >>> 0;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** A double in [0, 1) with 53 random bits, as `random.random()`. */
  random(): number {
    const a = this.nextUint32() >>> 5;
    const b = this.nextUint32() >>> 6;
    return (a * 67108864 + b) * (1 / 9007199254740992);
  }

  /** `random.getrandbits(k)` for 0 ≤ k ≤ 53 (as a number). Use getrandbitsBig for wider values. */
  getrandbits(k: number): number {
    if (!Number.isInteger(k) || k < 0)
      throw new RangeError(`getrandbits: k must be a non-negative integer, got ${k}`);
    if (k > 53) throw new RangeError('getrandbits: k > 53 does not fit a number; use getrandbitsBig');
    if (k === 0) return 0;
    if (k <= 32) return this.nextUint32() >>> (32 - k);
    const low = this.nextUint32();
    const high = this.nextUint32() >>> (64 - k);
    return high * 4294967296 + low;
  }

  /** `random.getrandbits(k)` for any k ≥ 0 as a bigint (32-bit words, least significant first). */
  getrandbitsBig(k: number): bigint {
    if (!Number.isInteger(k) || k < 0)
      throw new RangeError(`getrandbits: k must be a non-negative integer, got ${k}`);
    let result = 0n;
    let shift = 0n;
    for (let remaining = k; remaining > 0; remaining -= 32) {
      let word = this.nextUint32();
      if (remaining < 32) word >>>= 32 - remaining;
      result |= BigInt(word) << shift;
      shift += 32n;
    }
    return result;
  }

  /** `random.Random._randbelow(n)`: rejection sampling with n.bit_length() bits; n in [1, 2^53]. */
  randbelow(n: number): number {
    if (!Number.isInteger(n) || n < 0 || n > 2 ** 53) throw new RangeError(`randbelow: bad bound ${n}`);
    if (n === 0) return 0;
    const bits = bitLength(n);
    let r = this.getrandbits(bits);
    while (r >= n) r = this.getrandbits(bits);
    return r;
  }

  /**
   * `random.sample(population, k)`: k distinct elements in selection order. Like CPython it keeps a pool
   * (partial Fisher–Yates) when the population is no larger than a k-element set would be, otherwise it draws
   * indices and rejects repeats.
   */
  sample<T>(population: readonly T[], k: number): T[] {
    const n = population.length;
    if (!Number.isInteger(k) || k < 0 || k > n)
      throw new RangeError('Sample larger than population or is negative');
    const result: T[] = new Array<T>(k);
    let setsize = 21;
    if (k > 5) setsize += 4 ** Math.ceil(Math.log(k * 3) / Math.log(4));
    if (n <= setsize) {
      const pool = population.slice();
      for (let i = 0; i < k; i++) {
        const j = this.randbelow(n - i);
        result[i] = pool[j]!;
        pool[j] = pool[n - i - 1]!;
      }
    } else {
      const selected = new Set<number>();
      for (let i = 0; i < k; i++) {
        let j = this.randbelow(n);
        while (selected.has(j)) j = this.randbelow(n);
        selected.add(j);
        result[i] = population[j]!;
      }
    }
    return result;
  }
}

function bitLength(n: number): number {
  return n < 4294967296 ? 32 - Math.clz32(n) : 32 + (32 - Math.clz32(Math.floor(n / 4294967296)));
}
