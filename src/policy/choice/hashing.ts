/**
 * Hashed text features: tokens counted into signed buckets (the hashing trick), scaled by 1/√n so
 * a long list weighs no more than a short one. FNV-1a with a final avalanche.
 */

/** Adds signed hashed counts of `tokens` into `out[offset, offset + buckets)`, scaled by 1/√n. */
export function addHashed(
  out: Float32Array,
  offset: number,
  buckets: number,
  tokens: readonly string[],
  weight: number,
): void {
  if (tokens.length === 0) return;
  const scale = weight / Math.sqrt(tokens.length);
  for (const token of tokens) addBucket(out, offset, buckets, hash(token), scale);
}

/**
 * The tokens `${prefix}${left}|${right}` for every left × right pair, then `extra`: hundreds per
 * candidate on a web page, so they are hashed as they are read instead of built as strings.
 */
export interface CrossTokens {
  prefix: string;
  lefts: readonly string[];
  rights: readonly string[];
  extra?: readonly string[];
}

/** {@link addHashed} of a {@link CrossTokens}' tokens, in the same order, with the same hashes. */
export function addHashedCrosses(
  out: Float32Array,
  offset: number,
  buckets: number,
  { prefix, lefts, rights, extra = [] }: CrossTokens,
  weight: number,
): void {
  const count = lefts.length * rights.length + extra.length;
  if (count === 0) return;
  const scale = weight / Math.sqrt(count);
  const head = feed(FNV_OFFSET, prefix);
  for (const left of lefts) {
    const stem = feed(feed(head, left), '|');
    for (const right of rights) addBucket(out, offset, buckets, finish(feed(stem, right)), scale);
  }
  for (const token of extra) addBucket(out, offset, buckets, hash(token), scale);
}

/** Adds ±`scale` (by the hash's top bit) to the hash's bucket. */
function addBucket(
  out: Float32Array,
  offset: number,
  buckets: number,
  h: number,
  scale: number,
): void {
  const i = offset + ((h & 0x7fffffff) % buckets);
  out[i] = (out[i] as number) + (h >>> 31 ? -scale : scale);
}

const FNV_OFFSET = 0x811c9dc5;

/** FNV-1a with a final avalanche, so similar tokens land in unrelated buckets. */
function hash(text: string): number {
  return finish(feed(FNV_OFFSET, text));
}

/** FNV-1a's state after `text`, from state `h`: feeding parts one after another hashes their concatenation. */
function feed(h: number, text: string): number {
  let state = h;
  for (let i = 0; i < text.length; i++) state = Math.imul(state ^ text.charCodeAt(i), 0x01000193);
  return state;
}

/** The avalanche that ends {@link hash}. */
function finish(state: number): number {
  let h = state;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
