import { wordsOf } from './text.ts';

/**
 * How many documents (instructions, or whole episodes' texts) each word appears in, learnt from
 * the buffer: a word most documents share is phrasing or the env's vocabulary; the others carry a
 * document's own content (the names, ids and values it is about).
 */
export class WordFrequency {
  private readonly documents = new Map<string, number>();
  private count = 0;

  /** A word in at least `commonShare` of the documents is common: phrasing or vocabulary. */
  constructor(private readonly commonShare: number) {}

  /** Counts one more document. */
  add(document: string): void {
    this.count++;
    for (const w of new Set(wordsOf(document)))
      this.documents.set(w, (this.documents.get(w) ?? 0) + 1);
  }

  /** True unless `word` (lower-cased) is in a large share of the documents seen. */
  isContent(word: string): boolean {
    if (this.count < 5) return word.length > 2;
    return (this.documents.get(word) ?? 0) / this.count < this.commonShare;
  }

  /** The content words of `text`, once each. */
  of(text: string): string[] {
    return [...new Set(wordsOf(text))].filter((w) => this.isContent(w));
  }
}
