import { contentWords } from '../../core/text.ts';
import { type Trajectory, transitions } from '../../core/types.ts';
import { RewardModel } from '../reward-model.ts';
import {
  clickLabel,
  type ItemView,
  isAsin,
  type Page,
  parsePage,
  RESULTS_PER_PAGE,
  type ResultRow,
  searchQuery,
} from './grammar.ts';
import {
  type InstructionVocabulary,
  NO_VOCABULARY,
  type ProductFacts,
  purchaseFeatures,
  readInstruction,
} from './purchase.ts';

/** Places over which a listing's weight falls to 0: WebShop shows at most 50 results. */
const LISTED_PLACES = 50;

/**
 * A word is filler when at least this share of the buffer's instructions (and 3 of them) use it
 * and no product text shows it: `search`, `budget`, `priced` ask nothing of a product.
 */
const FILLER_SHARE = 0.02;

/** Queries are told apart by content words for {@link WebShopKnowledge.listingPrecision}: 1, 2, 3+. */
const LENGTH_CLASSES = 3;

/** How many of the known products ranked best for an instruction vote on its type words. */
const TYPE_VOTERS = 10;

interface QueryFacts {
  total: number;
  /** Result rows by page number, as seen. */
  pages: Map<number, ResultRow[]>;
}

interface Purchase {
  instruction: string;
  asin: string;
  selected: string[];
  reward: number;
}

/**
 * Everything real webshop episodes in the replay buffer have shown: the products seen (titles,
 * prices, options, descriptions), the results of the queries sent, the instructions, and the
 * purchases with their rewards. The LLM-free experience model answers from it; it is built only
 * from buffer transitions, never from the real env's catalog.
 */
export class WebShopKnowledge {
  readonly products = new Map<string, ProductFacts>();
  readonly queries = new Map<string, QueryFacts>();
  readonly purchases: Purchase[] = [];
  private rewardModel: RewardModel | undefined;
  /** Known products by title word, in the order they became known (built on first use). */
  private postings: Map<string, ProductFacts[]> | undefined;
  /**
   * Per product (by ASIN), the queries whose results listed it, each with its best place among
   * them (0 for the first result): what the search engine indexes beyond a title shows up in
   * which queries find a product.
   */
  private readonly listings = new Map<string, Map<string, number>>();
  /** Every option value and group name the buffer's item pages showed (lower-cased). */
  private readonly optionValues = new Set<string>();
  private readonly optionGroups = new Set<string>();
  /** How many of the distinct instructions seen use each content word. */
  private readonly instructionWords = new Map<string, number>();
  private readonly instructions = new Set<string>();
  /** Known products by search word (title words and words they were listed for), with weights. */
  private searchPostings: Map<string, Array<[ProductFacts, number]>> | undefined;
  /** Each product's place in the order products became known (with {@link postings}). */
  private readonly order = new Map<ProductFacts, number>();
  /** Rewards of the purchases seen, by {@link purchaseKey}; the first of equal purchases counts. */
  private readonly purchaseRewards = new Map<string, number>();
  /** ASIN → whether its item page, as a real episode showed it, offered options. */
  private readonly itemPages = new Map<string, boolean>();
  /** Answers kept until the knowledge changes. */
  private readonly memo = {
    rank: new Map<string, ProductFacts[]>(),
    similar: new Map<string, ProductFacts | undefined>(),
    words: new Map<string, Set<string>>(),
    typeWords: new Map<string, string[]>(),
    vocabulary: undefined as InstructionVocabulary | undefined,
    verified: undefined as Map<string, Set<string>> | undefined,
    listingPrecision: undefined as number[][] | undefined,
    optionShare: undefined as number | undefined,
  };

  static fromTrajectories(trajectories: Iterable<Trajectory>): WebShopKnowledge {
    const knowledge = new WebShopKnowledge();
    for (const t of trajectories) knowledge.add(t);
    return knowledge;
  }

  /** Learns from one real trajectory. */
  add(trajectory: Trajectory): void {
    this.addInstruction(trajectory.task.instruction);
    let query: string | undefined;
    let asin: string | undefined;
    let selected: string[] = [];
    for (const step of transitions(trajectory)) {
      const next = parsePage(step.nextState.text);
      const q = searchQuery(step.action);
      const label = clickLabel(step.action);
      if (next.kind === 'results') {
        if (q !== undefined) query = normalizeQuery(q);
        if (query !== undefined) this.addResults(query, next);
      } else if (next.kind === 'item') {
        if (label && isAsin(label)) {
          asin = label;
          selected = [];
        }
        if (asin) this.addItem(asin, next.item);
        if (next.clicked)
          selected = [
            ...selected.filter((s) => !sameGroup(next.item, s, next.clicked as string)),
            next.clicked,
          ];
      } else if (next.kind === 'detail' && asin && label) {
        const facts = this.products.get(asin);
        if (facts && label === 'Description') facts.description = next.body;
        if (facts && label === 'Features') facts.features = next.body;
      } else if (next.kind === 'done' && asin && step.terminated) {
        this.purchases.push({
          instruction: step.task.instruction,
          asin,
          selected,
          reward: step.reward,
        });
        const key = purchaseKey(step.task.instruction, asin, selected);
        if (!this.purchaseRewards.has(key)) this.purchaseRewards.set(key, step.reward);
      }
    }
    this.rewardModel = undefined;
    this.postings = undefined;
    this.searchPostings = undefined;
    this.memo.rank.clear();
    this.memo.similar.clear();
    this.memo.typeWords.clear();
    this.memo.vocabulary = undefined;
    this.memo.verified = undefined;
    this.memo.listingPrecision = undefined;
    this.memo.optionShare = undefined;
  }

  results(query: string): QueryFacts | undefined {
    return this.queries.get(normalizeQuery(query));
  }

  /** True when a real episode opened the product's page: its options are known, not guessed. */
  opened(asin: string): boolean {
    const facts = this.products.get(asin);
    return (
      facts !== undefined &&
      (facts.options.length > 0 || facts.description !== undefined || facts.features !== undefined)
    );
  }

  /**
   * Known products ranked for a query the buffer never saw. Each query word the product's title
   * has scores its idf; each word of a query that listed the product scores its idf times the
   * place weight (1 for the first result, falling linearly to 0 past the 50th), so a product the
   * engine ranked first for `non gmo granola` ranks high again for `non gmo granola in honey
   * flavor` though its title lacks `gmo`. `without` ranks as if that query had never been sent
   * (for {@link listingPrecision}). Ties are broken by ASIN.
   */
  rank(query: string, limit = 50, without?: string): ProductFacts[] {
    const key = `${limit}\u0000${without ?? ''}\u0000${normalizeQuery(query)}`;
    const cached = this.memo.rank.get(key);
    if (cached) return cached;
    const postings = this.searchIndex();
    const n = this.products.size;
    const queryWords = new Set(contentWords(query));
    const scores = new Map<ProductFacts, number>();
    const idfs = new Map<string, number>();
    for (const w of queryWords) {
      const having = postings.get(w) ?? [];
      const idf = Math.log(1 + n / Math.max(1, having.length));
      idfs.set(w, idf);
      for (const [facts, weight] of having) {
        scores.set(facts, (scores.get(facts) ?? 0) + idf * weight);
      }
    }
    if (without !== undefined) {
      for (const row of [...(this.results(without)?.pages.values() ?? [])].flat()) {
        const facts = this.products.get(row.asin) as ProductFacts;
        const weights = this.searchWeights(facts, normalizeQuery(without));
        let score = 0;
        for (const [w, idf] of idfs) score += idf * (weights.get(w) ?? 0);
        if (score > 0) scores.set(facts, score);
        else scores.delete(facts);
      }
    }
    const ranked = [...scores]
      .sort((a, b) => b[1] - a[1] || (a[0].asin < b[0].asin ? -1 : 1))
      .slice(0, limit)
      .map(([facts]) => facts);
    this.memo.rank.set(key, ranked);
    return ranked;
  }

  /**
   * For each place on the first page of results composed for `query`, a query the buffer never
   * saw ({@link rank}'s first ten), how likely the real first page lists that product too,
   * measured on the buffer's own queries of as many content words (1, 2, or more: one word ties
   * many titles, which the real engine orders by what the buffer does not show), each ranked as
   * if it had never been sent: (hits + 1) / (tries + 2), so places with little evidence stay
   * doubtful. Clicking a product the real page does not list fails there, so a purchase through
   * such a click is not sure to be possible.
   */
  listingPrecision(query: string): number[] {
    if (!this.memo.listingPrecision) {
      const count = () => new Array<number>(RESULTS_PER_PAGE).fill(0);
      const hits = Array.from({ length: LENGTH_CLASSES }, count);
      const tries = Array.from({ length: LENGTH_CLASSES }, count);
      for (const [sent, facts] of this.queries) {
        const first = facts.pages.get(1);
        if (!first) continue;
        const listed = new Set(first.map((r) => r.asin));
        const length = lengthClass(sent);
        this.rank(sent, RESULTS_PER_PAGE, sent).forEach((p, place) => {
          (tries[length] as number[])[place] = ((tries[length] as number[])[place] as number) + 1;
          if (listed.has(p.asin))
            (hits[length] as number[])[place] = ((hits[length] as number[])[place] as number) + 1;
        });
      }
      this.memo.listingPrecision = hits.map((row, length) =>
        row.map((h, place) => (h + 1) / (((tries[length] as number[])[place] as number) + 2)),
      );
    }
    return this.memo.listingPrecision[lengthClass(query)] as number[];
  }

  /**
   * The share of item pages real episodes showed that offered options: how likely an item never
   * opened has choices its composed page (which offers none) lacks. 1 with none shown.
   */
  optionShare(): number {
    if (this.memo.optionShare === undefined) {
      const pages = [...this.itemPages.values()];
      this.memo.optionShare =
        pages.length === 0 ? 1 : pages.filter((offers) => offers).length / pages.length;
    }
    return this.memo.optionShare;
  }

  /** The known product whose title is most like `title` (for texts of an unseen one). */
  mostSimilar(title: string, exclude?: string): ProductFacts | undefined {
    const key = `${exclude ?? ''}\u0000${title}`;
    if (this.memo.similar.has(key)) return this.memo.similar.get(key);
    const postings = this.index();
    const overlap = new Map<ProductFacts, number>();
    for (const w of this.titleWords(title)) {
      for (const facts of postings.get(w) ?? []) {
        if (facts.asin === exclude || (facts.options.length === 0 && !facts.description)) continue;
        overlap.set(facts, (overlap.get(facts) ?? 0) + 1);
      }
    }
    // The largest overlap wins; among equals, the product known first.
    let best: ProductFacts | undefined;
    let bestScore = 0;
    let bestOrder = Number.POSITIVE_INFINITY;
    for (const [facts, score] of overlap) {
      const order = this.order.get(facts) ?? 0;
      if (score > bestScore || (score === bestScore && order < bestOrder)) {
        best = facts;
        bestScore = score;
        bestOrder = order;
      }
    }
    this.memo.similar.set(key, best);
    return best;
  }

  /** The reward a real episode got for the same purchase (task, product, options), if any. */
  seenReward(instruction: string, asin: string, selected: readonly string[]): number | undefined {
    return this.purchaseRewards.get(purchaseKey(instruction, asin, selected));
  }

  /**
   * The option values and group names item pages showed, and the filler words of instructions
   * (see {@link FILLER_SHARE}).
   */
  vocabulary(): InstructionVocabulary {
    if (!this.memo.vocabulary) {
      const texts = [...this.products.values()].map(
        (facts) => `${facts.title} ${facts.description ?? ''} ${facts.features ?? ''}`,
      );
      const shown = new Set(contentWords([...texts, ...this.optionValues].join(' ')));
      const least = Math.max(3, FILLER_SHARE * this.instructions.size);
      const filler = new Set(
        [...this.instructionWords]
          .filter(([w, count]) => count >= least && !shown.has(w))
          .map(([w]) => w),
      );
      this.memo.vocabulary = { values: this.optionValues, groups: this.optionGroups, filler };
    }
    return this.memo.vocabulary;
  }

  /**
   * The words naming the kind of product an instruction asks for: its wanted words (see
   * `readInstruction`) that at least half of the {@link TYPE_VOTERS} known products ranked best
   * for them have in their titles (`office chair` for "an office chair that is padded
   * armrests"). Empty when nothing known matches.
   */
  typeWords(instruction: string): string[] {
    let found = this.memo.typeWords.get(instruction);
    if (!found) {
      const { wanted } = readInstruction(instruction, this.vocabulary());
      const voters = this.rank(wanted.join(' '), TYPE_VOTERS).map((p) => this.titleWords(p.title));
      found =
        voters.length === 0
          ? []
          : [...new Set(wanted)].filter(
              (w) => voters.filter((title) => title.has(w)).length >= voters.length / 2,
            );
      this.memo.typeWords.set(instruction, found);
    }
    return found;
  }

  /** Share of the instruction's {@link typeWords} that `title` has; undefined when none known. */
  typeShare(instruction: string, title: string): number | undefined {
    const type = this.typeWords(instruction);
    if (type.length === 0) return undefined;
    const has = this.titleWords(title);
    return type.filter((w) => has.has(w)).length / type.length;
  }

  /** {@link purchaseFeatures} with what the buffer taught: its vocabulary and verified words. */
  purchaseFeatures(
    instruction: string,
    facts: ProductFacts,
    selected: readonly string[],
  ): number[] {
    return purchaseFeatures(
      instruction,
      facts,
      selected,
      this.vocabulary(),
      this.verifiedWords().get(facts.asin),
    );
  }

  /** The reward model, fit on the purchases seen (refit after new data). */
  rewards(): RewardModel {
    if (!this.rewardModel) {
      const rows = this.purchases.flatMap((p) => {
        const facts = this.products.get(p.asin);
        return facts
          ? [
              {
                features: this.purchaseFeatures(p.instruction, facts, p.selected),
                reward: p.reward,
              },
            ]
          : [];
      });
      this.rewardModel = RewardModel.fit(
        rows.map((r) => r.features),
        rows.map((r) => r.reward),
      );
    }
    return this.rewardModel;
  }

  /**
   * Per product, words the buffer vouches it has though its pages may not show them: the wanted
   * words of instructions a real purchase of it fully satisfied (reward 1), and the words of the
   * queries the real engine listed it first for (the engine indexes more than a page shows, and
   * puts first what matches the query best).
   */
  private verifiedWords(): Map<string, Set<string>> {
    if (!this.memo.verified) {
      const verified = new Map<string, Set<string>>();
      const vouch = (asin: string, words: readonly string[]) => {
        const known = verified.get(asin) ?? new Set<string>();
        for (const w of words) known.add(w);
        verified.set(asin, known);
      };
      for (const p of this.purchases) {
        if (p.reward >= 1) vouch(p.asin, readInstruction(p.instruction, this.vocabulary()).wanted);
      }
      for (const [asin, listed] of this.listings) {
        for (const [query, place] of listed) if (place === 0) vouch(asin, contentWords(query));
      }
      this.memo.verified = verified;
    }
    return this.memo.verified;
  }

  private addInstruction(instruction: string): void {
    if (this.instructions.has(instruction)) return;
    this.instructions.add(instruction);
    for (const w of new Set(readInstruction(instruction, NO_VOCABULARY).wanted))
      this.instructionWords.set(w, (this.instructionWords.get(w) ?? 0) + 1);
  }

  private addResults(query: string, page: Extract<Page, { kind: 'results' }>): void {
    const facts = this.queries.get(query) ?? { total: page.total, pages: new Map() };
    facts.pages.set(page.page, page.rows);
    this.queries.set(query, facts);
    page.rows.forEach((row, i) => {
      if (!this.products.has(row.asin)) this.products.set(row.asin, { ...row, options: [] });
      const place = (page.page - 1) * RESULTS_PER_PAGE + i;
      const listed = this.listings.get(row.asin) ?? new Map<string, number>();
      this.listings.set(row.asin, listed);
      listed.set(query, Math.min(listed.get(query) ?? place, place));
    });
  }

  private addItem(asin: string, item: Omit<ItemView, 'asin'>): void {
    this.itemPages.set(asin, item.options.length > 0);
    for (const group of item.options) {
      this.optionGroups.add(group.name.toLowerCase());
      for (const value of group.values) this.optionValues.add(value.toLowerCase());
    }
    const facts = this.products.get(asin);
    this.products.set(asin, {
      ...facts,
      asin,
      title: item.title,
      price: item.price,
      options: item.options,
    });
  }

  private titleWords(title: string): Set<string> {
    let words = this.memo.words.get(title);
    if (!words) {
      words = new Set(contentWords(title));
      this.memo.words.set(title, words);
    }
    return words;
  }

  /**
   * A product's search words with their weights: 1 for a title word, plus, for each word of a
   * query that listed it (but `without`), its best place weight.
   */
  private searchWeights(facts: ProductFacts, without?: string): Map<string, number> {
    const listed = new Map<string, number>();
    for (const [query, place] of this.listings.get(facts.asin) ?? []) {
      if (query === without) continue;
      const weight = Math.max(0, 1 - place / LISTED_PLACES);
      for (const w of contentWords(query)) listed.set(w, Math.max(listed.get(w) ?? 0, weight));
    }
    const weights = new Map<string, number>();
    for (const w of this.titleWords(facts.title)) weights.set(w, 1);
    for (const [w, weight] of listed) weights.set(w, (weights.get(w) ?? 0) + weight);
    return weights;
  }

  /** Products by search word with its weight (see {@link searchWeights}). */
  private searchIndex(): Map<string, Array<[ProductFacts, number]>> {
    if (!this.searchPostings) {
      this.searchPostings = new Map();
      for (const facts of this.products.values()) {
        for (const [w, weight] of this.searchWeights(facts)) {
          const having = this.searchPostings.get(w);
          if (having) having.push([facts, weight]);
          else this.searchPostings.set(w, [[facts, weight]]);
        }
      }
    }
    return this.searchPostings;
  }

  /** Products by title word (an inverted index), so ranking touches only products that match. */
  private index(): Map<string, ProductFacts[]> {
    if (!this.postings) {
      this.postings = new Map();
      this.order.clear();
      for (const facts of this.products.values()) {
        this.order.set(facts, this.order.size);
        for (const w of this.titleWords(facts.title)) {
          const having = this.postings.get(w);
          if (having) having.push(facts);
          else this.postings.set(w, [facts]);
        }
      }
    }
    return this.postings;
  }
}

function purchaseKey(instruction: string, asin: string, selected: readonly string[]): string {
  return `${instruction}\u0000${asin}\u0000${[...selected].sort().join('\u0000')}`;
}

/** A query as the knowledge keys it: lower-cased, single-spaced, trimmed. */
export function normalizeQuery(query: string): string {
  return query.toLowerCase().replace(/\s+/g, ' ').trim();
}

/** True when `value` and `clicked` belong to the same option group of `item`. */
function sameGroup(item: Omit<ItemView, 'asin'>, value: string, clicked: string): boolean {
  return item.options.some((g) => g.values.includes(value) && g.values.includes(clicked));
}

/** A query's class for {@link LENGTH_CLASSES}: 0 for one content word (or none), 1 for two, 2 above. */
function lengthClass(query: string): number {
  return Math.max(0, Math.min(LENGTH_CLASSES, contentWords(query).length) - 1);
}
