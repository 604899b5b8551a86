/**
 * The little dense linear algebra a regression needs: products, a Cholesky inverse of a positive-definite
 * matrix, a pseudo-inverse of a symmetric matrix (Jacobi eigen-decomposition, as numpy's pinv truncates: singular
 * values below 1e-15 × the largest are dropped), and the columns of a design that depend on earlier ones.
 * Matrices are arrays of rows; sizes are small (tens of columns).
 */
export type Matrix = number[][];

export function zeros(rows: number, cols: number): Matrix {
  return Array.from({ length: rows }, () => new Array<number>(cols).fill(0));
}

export function matMul(a: Matrix, b: Matrix): Matrix {
  const out = zeros(a.length, b[0]?.length ?? 0);
  for (let i = 0; i < a.length; i++)
    for (let k = 0; k < b.length; k++) {
      const aik = a[i][k];
      if (aik === 0) continue;
      for (let j = 0; j < b[0].length; j++) out[i][j] += aik * b[k][j];
    }
  return out;
}

export function matVec(a: Matrix, v: readonly number[]): number[] {
  return a.map((row) => row.reduce((s, x, j) => s + x * v[j], 0));
}

/** The inverse of a symmetric positive-definite matrix, or null when it is not (numerically) positive definite. */
export function choleskyInverse(a: Matrix): Matrix | null {
  const n = a.length;
  const l = zeros(n, n);
  for (let j = 0; j < n; j++) {
    let d = a[j][j];
    for (let k = 0; k < j; k++) d -= l[j][k] * l[j][k];
    if (!(d > 1e-300) || d <= 1e-13 * Math.abs(a[j][j])) return null;
    l[j][j] = Math.sqrt(d);
    for (let i = j + 1; i < n; i++) {
      let s = a[i][j];
      for (let k = 0; k < j; k++) s -= l[i][k] * l[j][k];
      l[i][j] = s / l[j][j];
    }
  }
  // inv(L) by forward substitution, then inv(A) = inv(L)ᵀ inv(L).
  const li = zeros(n, n);
  for (let i = 0; i < n; i++) {
    li[i][i] = 1 / l[i][i];
    for (let j = 0; j < i; j++) {
      let s = 0;
      for (let k = j; k < i; k++) s -= l[i][k] * li[k][j];
      li[i][j] = s / l[i][i];
    }
  }
  const inv = zeros(n, n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j <= i; j++) {
      let s = 0;
      for (let k = i; k < n; k++) s += li[k][i] * li[k][j];
      inv[i][j] = s;
      inv[j][i] = s;
    }
  return inv;
}

/** Eigen-decomposition of a symmetric matrix by cyclic Jacobi rotations: A = V diag(values) Vᵀ. */
export function symmetricEigen(a: Matrix): { values: number[]; vectors: Matrix } {
  const n = a.length;
  const m = a.map((row) => [...row]);
  const v = zeros(n, n);
  for (let i = 0; i < n; i++) v[i][i] = 1;
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += m[p][q] * m[p][q];
    if (off < 1e-30) break;
    for (let p = 0; p < n; p++)
      for (let q = p + 1; q < n; q++) {
        if (m[p][q] === 0) continue;
        const theta = (m[q][q] - m[p][p]) / (2 * m[p][q]);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k++) {
          const mkp = m[k][p];
          const mkq = m[k][q];
          m[k][p] = c * mkp - s * mkq;
          m[k][q] = s * mkp + c * mkq;
        }
        for (let k = 0; k < n; k++) {
          const mpk = m[p][k];
          const mqk = m[q][k];
          m[p][k] = c * mpk - s * mqk;
          m[q][k] = s * mpk + c * mqk;
        }
        for (let k = 0; k < n; k++) {
          const vkp = v[k][p];
          const vkq = v[k][q];
          v[k][p] = c * vkp - s * vkq;
          v[k][q] = s * vkp + c * vkq;
        }
      }
  }
  return { values: m.map((row, i) => row[i]), vectors: v };
}

/** Moore–Penrose pseudo-inverse of a symmetric matrix, and its rank. */
export function symmetricPseudoInverse(a: Matrix): { inverse: Matrix; rank: number } {
  const n = a.length;
  const { values, vectors } = symmetricEigen(a);
  const cutoff = 1e-15 * Math.max(0, ...values.map(Math.abs));
  const out = zeros(n, n);
  let rank = 0;
  for (let k = 0; k < n; k++) {
    if (Math.abs(values[k]) <= cutoff) continue;
    rank++;
    const inv = 1 / values[k];
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) out[i][j] += vectors[i][k] * inv * vectors[j][k];
  }
  return { inverse: out, rank };
}

/**
 * Indices of the design's columns that are (numerically) linear combinations of the columns before them, by
 * modified Gram–Schmidt in column order. An all-zero column is dependent on anything.
 */
export function dependentColumns(rows: Matrix, tolerance = 1e-9): number[] {
  const n = rows.length;
  const k = rows[0]?.length ?? 0;
  const basis: number[][] = [];
  const dependent: number[] = [];
  for (let j = 0; j < k; j++) {
    const col = rows.map((r) => r[j]);
    const norm0 = Math.sqrt(col.reduce((s, x) => s + x * x, 0));
    for (const q of basis) {
      let dot = 0;
      for (let i = 0; i < n; i++) dot += q[i] * col[i];
      for (let i = 0; i < n; i++) col[i] -= dot * q[i];
    }
    const norm = Math.sqrt(col.reduce((s, x) => s + x * x, 0));
    if (norm0 === 0 || norm <= tolerance * norm0) dependent.push(j);
    else basis.push(col.map((x) => x / norm));
  }
  return dependent;
}
