/**
 * A compact BM25 inverted index with weighted fields (BM25F-style term frequencies).
 *
 * Why not MiniSearch (which we used first): it scores every matching document through Maps and
 * then sorts them all, so a query with a common word took 51 ms p50 at 100k products
 * (bench/results/webshop.json before this file). Here postings live in typed arrays with the BM25
 * term weight precomputed at build time, scores accumulate in one Float64Array, and a size-k heap
 * picks the top results: a query costs the length of its postings lists, nothing more.
 */

export interface Bm25Options {
  /** Term-frequency saturation (Lucene's default 1.2). */
  k1?: number;
  /** Document-length normalisation (Lucene's default 0.75). */
  b?: number;
}

/** A document as named text fields; fields missing from `weights` are ignored. */
export type FieldTexts = Record<string, string>;

export class Bm25Index {
  private readonly termIds = new Map<string, number>();
  /** Postings of term t are entries offsets[t] .. offsets[t + 1] of docs/weights. */
  private readonly offsets: Int32Array;
  private readonly docs: Int32Array;
  private readonly weights: Float32Array;
  private readonly idf: Float64Array;
  private readonly scores: Float64Array;
  readonly size: number;

  constructor(
    documents: readonly FieldTexts[],
    fieldWeights: Record<string, number>,
    private readonly tokenize: (text: string) => string[],
    { k1 = 1.2, b = 0.75 }: Bm25Options = {},
  ) {
    this.size = documents.length;
    const perDoc: Array<Map<number, number>> = [];
    const lengths = new Float64Array(documents.length);
    const documentFrequency: number[] = [];
    for (const [d, doc] of documents.entries()) {
      const tf = new Map<number, number>();
      for (const [field, weight] of Object.entries(fieldWeights)) {
        const text = doc[field];
        if (!text) continue;
        for (const term of tokenize(text)) {
          let id = this.termIds.get(term);
          if (id === undefined) {
            id = this.termIds.size;
            this.termIds.set(term, id);
            documentFrequency.push(0);
          }
          const before = tf.get(id);
          if (before === undefined) documentFrequency[id] = (documentFrequency[id] as number) + 1;
          tf.set(id, (before ?? 0) + weight);
          lengths[d] = (lengths[d] as number) + weight;
        }
      }
      perDoc.push(tf);
    }

    const terms = this.termIds.size;
    const n = documents.length;
    this.offsets = new Int32Array(terms + 1);
    for (let t = 0; t < terms; t++) {
      this.offsets[t + 1] = (this.offsets[t] as number) + (documentFrequency[t] as number);
    }
    const total = this.offsets[terms] as number;
    this.docs = new Int32Array(total);
    this.weights = new Float32Array(total);
    this.idf = new Float64Array(terms);
    for (let t = 0; t < terms; t++) {
      const df = documentFrequency[t] as number;
      this.idf[t] = Math.log(1 + (n - df + 0.5) / (df + 0.5));
    }
    const averageLength = lengths.reduce((s, x) => s + x, 0) / Math.max(1, n);
    const fill = this.offsets.slice(0, terms);
    for (const [d, tf] of perDoc.entries()) {
      const norm = k1 * (1 - b + (b * (lengths[d] as number)) / (averageLength || 1));
      for (const [t, f] of tf) {
        const at = fill[t] as number;
        fill[t] = at + 1;
        this.docs[at] = d;
        this.weights[at] = (f * (k1 + 1)) / (f + norm);
      }
    }
    this.scores = new Float64Array(n);
  }

  /**
   * The `limit` best documents for the query (any term may match, as in WebShop's BM25 search),
   * best first; ties go to the lower document index, so results are deterministic.
   */
  search(query: string, limit: number): number[] {
    const termIds = new Set<number>();
    for (const term of this.tokenize(query)) {
      const id = this.termIds.get(term);
      if (id !== undefined) termIds.add(id);
    }
    if (termIds.size === 0 || limit <= 0) return [];
    const touched: number[] = [];
    for (const t of termIds) {
      const idf = this.idf[t] as number;
      const end = this.offsets[t + 1] as number;
      for (let i = this.offsets[t] as number; i < end; i++) {
        const d = this.docs[i] as number;
        if (this.scores[d] === 0) touched.push(d);
        this.scores[d] = (this.scores[d] as number) + idf * (this.weights[i] as number);
      }
    }
    const top = topK(touched, this.scores, limit);
    for (const d of touched) this.scores[d] = 0;
    return top;
  }
}

/** The k candidates with the highest score (ties: lower index first), via a size-k min-heap. */
function topK(candidates: readonly number[], scores: Float64Array, k: number): number[] {
  // `worse(a, b)`: a ranks below b.
  const worse = (a: number, b: number) => {
    const sa = scores[a] as number;
    const sb = scores[b] as number;
    return sa < sb || (sa === sb && a > b);
  };
  const heap: number[] = [];
  const siftDown = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && worse(heap[l] as number, heap[m] as number)) m = l;
      if (r < heap.length && worse(heap[r] as number, heap[m] as number)) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m] as number, heap[i] as number];
      i = m;
    }
  };
  for (const d of candidates) {
    if (heap.length < k) {
      heap.push(d);
      for (let i = heap.length - 1; i > 0; ) {
        const p = (i - 1) >> 1;
        if (!worse(heap[i] as number, heap[p] as number)) break;
        [heap[i], heap[p]] = [heap[p] as number, heap[i] as number];
        i = p;
      }
    } else if (worse(heap[0] as number, d)) {
      heap[0] = d;
      siftDown(0);
    }
  }
  return heap.sort((a, b) => (worse(a, b) ? 1 : worse(b, a) ? -1 : 0));
}
