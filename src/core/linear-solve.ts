/**
 * Small dense linear algebra for the reward models' closed-form and Newton fits: systems of a few
 * dozen unknowns, where a numeric library would be a dependency for one function.
 */

/**
 * Solves a·x = b by Gaussian elimination with partial pivoting; an unknown whose pivot vanishes (a
 * singular direction) gets 0 instead of an infinity.
 */
export function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i] as number]);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++)
      if (Math.abs(m[r]?.[col] as number) > Math.abs(m[pivot]?.[col] as number)) pivot = r;
    [m[col], m[pivot]] = [m[pivot] as number[], m[col] as number[]];
    const p = m[col]?.[col] as number;
    if (Math.abs(p) < 1e-12) continue;
    for (let r = 0; r < n; r++) {
      if (r === col) continue;
      const factor = (m[r]?.[col] as number) / p;
      for (let c = col; c <= n; c++)
        (m[r] as number[])[c] = (m[r]?.[c] as number) - factor * (m[col]?.[c] as number);
    }
  }
  return m.map((row, i) => {
    const p = row[i] as number;
    return Math.abs(p) < 1e-12 ? 0 : (row[n] as number) / p;
  });
}
