/**
 * A change to one line carried over to another version of that line, token by token (a three-way
 * merge): what the change removed is removed from our line where it stands there, what it added
 * is added where its neighbours stand, and what our line has of its own stays.
 */
import { lcs } from './align.ts';
import { type Token, tokenize } from './text.ts';

/** A token with the whitespace that preceded it, so a merged line reads as the originals did. */
interface Piece {
  text: string;
  space: string;
}

/** `ours` changed as `before` changed into `after` (the three already in the same values). */
export function mergeLine(before: string, after: string, ours: string): string {
  const o = pieces(before);
  const n = pieces(after);
  const b = pieces(ours);
  const toN = new Map(lcs(texts(o), texts(n)));
  const toB = new Map(lcs(texts(o), texts(b)));
  // Sync points: tokens of `before` that both `after` and `ours` kept, in order.
  const sync: Array<[number, number, number]> = [];
  for (const [i, k] of toN) {
    const j = toB.get(i);
    if (j === undefined) continue;
    const last = sync.at(-1);
    if (!last || (k > last[1] && j > last[2])) sync.push([i, k, j]);
  }
  const out: Piece[] = [];
  let [oi, nk, bj] = [0, 0, 0];
  for (const [i, k, j] of [...sync, [o.length, n.length, b.length] as [number, number, number]]) {
    out.push(...mergeChunk(o.slice(oi, i), n.slice(nk, k), b.slice(bj, j)));
    if (i < o.length) out.push(b[j] as Piece);
    [oi, nk, bj] = [i + 1, k + 1, j + 1];
  }
  return out.map((p, index) => (index === 0 ? p.space.trimStart() : p.space) + p.text).join('');
}

/**
 * One stretch between sync points: ours when the change left it alone, the change's when ours
 * is the original, else ours with the change's removals and additions applied.
 */
function mergeChunk(o: Piece[], n: Piece[], b: Piece[]): Piece[] {
  const same = (x: Piece[], y: Piece[]) =>
    x.length === y.length && x.every((p, i) => p.text === (y[i] as Piece).text);
  if (same(o, n)) return b;
  if (same(o, b)) return n;
  const kept = new Map(lcs(texts(o), texts(n)));
  let result = [...b];
  // Removals: runs of `o` that `n` dropped, taken out of ours where they stand as a run; where
  // ours does not have them, ours differs from the original here and the change's version wins.
  let run: Piece[] = [];
  let missing = false;
  const remove = () => {
    if (run.length === 0) return;
    const at = find(result, run);
    if (at >= 0) result = [...result.slice(0, at), ...result.slice(at + run.length)];
    else missing = true;
    run = [];
  };
  o.forEach((p, i) => {
    if (kept.has(i)) remove();
    else run.push(p);
  });
  remove();
  if (missing) return n;
  // The change replaced all it had here (a list's only element by the empty list's words): ours,
  // which had more, just loses what was removed, and the separator that went with it.
  if (kept.size === 0 && result.some((p) => /[\p{L}\p{N}]/u.test(p.text))) {
    while (result.length > 0 && !/[\p{L}\p{N}]/u.test((result[0] as Piece).text)) result.shift();
    return result;
  }
  // Additions: runs of `n` that `o` lacks, put in after the token that precedes them in `n`.
  const added = new Set(n.map((_, k) => k).filter((k) => ![...kept.values()].includes(k)));
  let k = 0;
  while (k < n.length) {
    if (!added.has(k)) {
      k++;
      continue;
    }
    const start = k;
    while (k < n.length && added.has(k)) k++;
    const insertion = n.slice(start, k);
    const anchor = start > 0 ? (n[start - 1] as Piece).text : undefined;
    const at = anchor === undefined ? 0 : result.findIndex((p) => p.text === anchor) + 1;
    result = [...result.slice(0, at), ...insertion, ...result.slice(at)];
  }
  return result;
}

function pieces(line: string): Piece[] {
  let end = 0;
  return tokenize(line).map((t: Token) => {
    const piece = { text: t.text, space: line.slice(end, t.start) };
    end = t.end;
    return piece;
  });
}

function texts(pieces: readonly Piece[]): string[] {
  return pieces.map((p) => p.text);
}

function find(haystack: readonly Piece[], needle: readonly Piece[]): number {
  for (let i = 0; i + needle.length <= haystack.length; i++)
    if (needle.every((p, k) => (haystack[i + k] as Piece).text === p.text)) return i;
  return -1;
}
