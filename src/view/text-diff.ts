/** One line of a diff: in both texts, only in the second (`added`), or only in the first (`removed`). */
export interface DiffLine {
  kind: 'same' | 'added' | 'removed';
  text: string;
}

/** Cells of the LCS table above which {@link diffSequences} stops aligning the middles. */
const MAX_CELLS = 4_000_000;

/**
 * An edit script from `a` to `b` along their longest common subsequence: `same` for an item of
 * both (advancing in each), `removed` for one only `a` has, `added` for one only `b` has, ordered
 * like a unified diff. Common head and tail items are matched before the quadratic table; past
 * {@link MAX_CELLS} the middles are given as all removed, then all added.
 */
export function diffSequences<T>(a: readonly T[], b: readonly T[]): Array<DiffLine['kind']> {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  const ops: Array<DiffLine['kind']> = Array(head).fill('same');
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  const n = midA.length;
  const m = midB.length;
  if (n * m > MAX_CELLS) {
    ops.push(
      ...Array<DiffLine['kind']>(n).fill('removed'),
      ...Array<DiffLine['kind']>(m).fill('added'),
    );
  } else {
    // lcs[i][j]: length of the longest common subsequence of midA[i..] and midB[j..].
    const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
    for (let i = n - 1; i >= 0; i--) {
      const row = lcs[i] as Uint32Array;
      const below = lcs[i + 1] as Uint32Array;
      for (let j = m - 1; j >= 0; j--) {
        row[j] =
          midA[i] === midB[j]
            ? (below[j + 1] as number) + 1
            : Math.max(below[j] as number, row[j + 1] as number);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n && j < m) {
      if (midA[i] === midB[j]) {
        ops.push('same');
        i++;
        j++;
      } else if (
        ((lcs[i + 1] as Uint32Array)[j] as number) >= ((lcs[i] as Uint32Array)[j + 1] as number)
      ) {
        ops.push('removed');
        i++;
      } else {
        ops.push('added');
        j++;
      }
    }
    for (; i < n; i++) ops.push('removed');
    for (; j < m; j++) ops.push('added');
  }
  for (let k = 0; k < tail; k++) ops.push('same');
  return ops;
}

/**
 * A line diff of `before` and `after` (see {@link diffSequences}): lines of both are `same`,
 * lines only `after` has `added`, lines only `before` has `removed`.
 */
export function diffLines(before: string, after: string): DiffLine[] {
  const a = before.split('\n');
  const b = after.split('\n');
  let i = 0;
  let j = 0;
  return diffSequences(a, b).map((kind) => {
    if (kind === 'added') return { kind, text: b[j++] as string };
    if (kind === 'same') j++;
    return { kind, text: a[i++] as string };
  });
}
