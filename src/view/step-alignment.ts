import { diffSequences } from './text-diff.ts';

/** A row of two aligned episodes: a step of each (by index), or of one only. */
export interface AlignedSteps {
  /** Step index in the first episode, if this row has one. */
  a?: number;
  /** Step index in the second episode, if this row has one. */
  b?: number;
  /** Whether the two steps took the same action. */
  sameAction: boolean;
}

/**
 * Lines up two episodes' steps by their actions: steps along the longest common subsequence of
 * actions share a row, so a diff of their next states compares one move in two worlds; between
 * two such anchors the remaining steps are paired in order (and marked as different actions),
 * and what is left over of the longer run gets a row of its own.
 */
export function alignSteps(a: readonly string[], b: readonly string[]): AlignedSteps[] {
  const rows: AlignedSteps[] = [];
  let onlyA: number[] = [];
  let onlyB: number[] = [];
  const flush = () => {
    for (let k = 0; k < Math.max(onlyA.length, onlyB.length); k++) {
      const row: AlignedSteps = { sameAction: false };
      if (k < onlyA.length) row.a = onlyA[k] as number;
      if (k < onlyB.length) row.b = onlyB[k] as number;
      rows.push(row);
    }
    onlyA = [];
    onlyB = [];
  };
  let i = 0;
  let j = 0;
  for (const op of diffSequences(a, b)) {
    if (op === 'same') {
      flush();
      rows.push({ a: i++, b: j++, sameAction: true });
    } else if (op === 'removed') onlyA.push(i++);
    else onlyB.push(j++);
  }
  flush();
  return rows;
}

/** How many actions two episodes share in order: how well one can stand beside the other. */
export function sharedActions(a: readonly string[], b: readonly string[]): number {
  return diffSequences(a, b).filter((op) => op === 'same').length;
}
