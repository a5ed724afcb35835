/** One line of a diff: in both texts, only in the second (`added`), or only in the first (`removed`). */
export interface DiffLine {
  kind: 'same' | 'added' | 'removed';
  text: string;
}

/** Cells of the LCS table above which {@link diffLines} stops aligning and lists both texts whole. */
const MAX_CELLS = 4_000_000;

/**
 * A line diff of `before` and `after` along their longest common subsequence of lines: lines of
 * both are `same`, lines only `after` has are `added`, lines only `before` has `removed`, in an
 * order that reads like a unified diff. Common head and tail lines are trimmed before the
 * quadratic table; past {@link MAX_CELLS} the middles are shown as removed then added.
 */
export function diffLines(before: string, after: string): DiffLine[] {
  const a = before.split('\n');
  const b = after.split('\n');
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  const same = (text: string): DiffLine => ({ kind: 'same', text });
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  return [
    ...a.slice(0, head).map(same),
    ...diffMiddle(midA, midB),
    ...a.slice(a.length - tail).map(same),
  ];
}

function diffMiddle(a: string[], b: string[]): DiffLine[] {
  const n = a.length;
  const m = b.length;
  if (n * m > MAX_CELLS) {
    return [
      ...a.map((text): DiffLine => ({ kind: 'removed', text })),
      ...b.map((text): DiffLine => ({ kind: 'added', text })),
    ];
  }
  // lcs[i][j]: length of the longest common subsequence of a[i..] and b[j..].
  const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    const row = lcs[i] as Uint32Array;
    const below = lcs[i + 1] as Uint32Array;
    for (let j = m - 1; j >= 0; j--) {
      row[j] =
        a[i] === b[j] ? (below[j + 1] as number) + 1 : Math.max(below[j] as number, row[j + 1] as number);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push({ kind: 'same', text: a[i] as string });
      i++;
      j++;
    } else if ((lcs[i + 1] as Uint32Array)[j] as number >= ((lcs[i] as Uint32Array)[j + 1] as number)) {
      out.push({ kind: 'removed', text: a[i++] as string });
    } else {
      out.push({ kind: 'added', text: b[j++] as string });
    }
  }
  while (i < n) out.push({ kind: 'removed', text: a[i++] as string });
  while (j < m) out.push({ kind: 'added', text: b[j++] as string });
  return out;
}
