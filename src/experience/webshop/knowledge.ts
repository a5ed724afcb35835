import { budgetOf, contentWords, priceIn, words } from '../../core/text.ts';
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

/** What the buffer has shown about one product. */
export interface ProductFacts extends ItemView {
  description?: string;
  features?: string;
}

/** Places over which a listing's weight falls to 0: WebShop shows at most 50 results. */
const LISTED_PLACES = 50;

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
 * prices, options, descriptions), the results of the queries sent, and the purchases with their
 * rewards. The LLM-free experience model answers from it; it is built only from buffer
 * transitions, never from the real env's catalog.
 */
export class WebShopKnowledge {
  readonly products = new Map<string, ProductFacts>();
  readonly queries = new Map<string, QueryFacts>();
  readonly purchases: Purchase[] = [];
  private rewardModel: RewardModel | undefined;
  /** Known products by title word, in the order they became known (built on first use). */
  private postings: Map<string, ProductFacts[]> | undefined;
  /**
   * Per product (by ASIN), the words of the queries whose results listed it, each weighted by its
   * best place among them (1 for the first result, falling linearly to 0 past the 50th): what
   * the search engine indexes beyond a title shows up in which queries find a product.
   */
  private readonly listedFor = new Map<string, Map<string, number>>();
  /** Every option value and group name the buffer's item pages showed (lower-cased). */
  readonly optionVocabulary: OptionVocabulary = { values: new Set(), groups: new Set() };
  /** Known products by search word (title words and words they were listed for), with weights. */
  private searchPostings: Map<string, Array<[ProductFacts, number]>> | undefined;
  /** Each product's place in the order products became known (with {@link postings}). */
  private readonly order = new Map<ProductFacts, number>();
  /** Rewards of the purchases seen, by {@link purchaseKey}; the first of equal purchases counts. */
  private readonly purchaseRewards = new Map<string, number>();
  /** Answers of `rank` and `mostSimilar`, and title words, kept until the knowledge changes. */
  private readonly memo = {
    rank: new Map<string, ProductFacts[]>(),
    similar: new Map<string, ProductFacts | undefined>(),
    words: new Map<string, Set<string>>(),
  };

  static fromTrajectories(trajectories: Iterable<Trajectory>): WebShopKnowledge {
    const knowledge = new WebShopKnowledge();
    for (const t of trajectories) knowledge.add(t);
    return knowledge;
  }

  /** Learns from one real trajectory. */
  add(trajectory: Trajectory): void {
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
  }

  results(query: string): QueryFacts | undefined {
    return this.queries.get(normalizeQuery(query));
  }

  /**
   * Known products ranked for a query the buffer never saw. Each query word the product's title
   * has scores its idf; each word of a query that listed the product scores its idf times the
   * place weight (see {@link listedFor}), so a product the engine ranked first for `non gmo
   * granola` ranks high again for `non gmo granola in honey flavor` though its title lacks `gmo`.
   * Ties are broken by ASIN.
   */
  rank(query: string, limit = 50): ProductFacts[] {
    const key = `${limit}\u0000${normalizeQuery(query)}`;
    const cached = this.memo.rank.get(key);
    if (cached) return cached;
    const postings = this.searchIndex();
    const n = this.products.size;
    const scores = new Map<ProductFacts, number>();
    for (const w of new Set(contentWords(query))) {
      const having = postings.get(w) ?? [];
      const idf = Math.log(1 + n / Math.max(1, having.length));
      for (const [facts, weight] of having) {
        scores.set(facts, (scores.get(facts) ?? 0) + idf * weight);
      }
    }
    const ranked = [...scores]
      .sort((a, b) => b[1] - a[1] || (a[0].asin < b[0].asin ? -1 : 1))
      .slice(0, limit)
      .map(([facts]) => facts);
    this.memo.rank.set(key, ranked);
    return ranked;
  }

  /** The known product whose title is most like `title` (for options and texts of an unseen one). */
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

  /** {@link purchaseFeatures} with the option values and group names the buffer showed. */
  purchaseFeatures(
    instruction: string,
    facts: ProductFacts,
    selected: readonly string[],
  ): number[] {
    return purchaseFeatures(instruction, facts, selected, this.optionVocabulary);
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

  private addResults(query: string, page: Extract<Page, { kind: 'results' }>): void {
    const facts = this.queries.get(query) ?? { total: page.total, pages: new Map() };
    facts.pages.set(page.page, page.rows);
    this.queries.set(query, facts);
    const queryWords = new Set(contentWords(query));
    page.rows.forEach((row, i) => {
      if (!this.products.has(row.asin)) this.products.set(row.asin, { ...row, options: [] });
      const place = (page.page - 1) * RESULTS_PER_PAGE + i;
      const weight = Math.max(0, 1 - place / LISTED_PLACES);
      const listed = this.listedFor.get(row.asin) ?? new Map<string, number>();
      this.listedFor.set(row.asin, listed);
      for (const w of queryWords) listed.set(w, Math.max(listed.get(w) ?? 0, weight));
    });
  }

  private addItem(asin: string, item: Omit<ItemView, 'asin'>): void {
    for (const group of item.options) {
      this.optionVocabulary.groups.add(group.name.toLowerCase());
      for (const value of group.values) this.optionVocabulary.values.add(value.toLowerCase());
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

  /** Products by search word with its weight: 1 for a title word, plus what it was listed for. */
  private searchIndex(): Map<string, Array<[ProductFacts, number]>> {
    if (!this.searchPostings) {
      this.searchPostings = new Map();
      for (const facts of this.products.values()) {
        const weights = new Map<string, number>();
        for (const w of this.titleWords(facts.title)) weights.set(w, 1);
        for (const [w, weight] of this.listedFor.get(facts.asin) ?? []) {
          weights.set(w, (weights.get(w) ?? 0) + weight);
        }
        for (const [w, weight] of weights) {
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

/** Option values and group names seen on item pages: what an instruction may ask to choose. */
export interface OptionVocabulary {
  values: Set<string>;
  groups: Set<string>;
}

/**
 * Features of a purchase for the reward model. The option values the instruction names are the
 * known values (any product's, and this one's) it contains as whole phrases, the longest where
 * they overlap (`4 ounce (pack of 1)`, not `pack of 1`). The rest of its words, less option group
 * names and the budget, stand for what the product must be and have. Features:
 * - the share of those words the product's known text (title, description, features) shows;
 * - the share its title shows;
 * - the share of named option values selected (1 when it names none);
 * - the share of named option values this product does not offer;
 * - whether a selected value is one the instruction does not name;
 * - whether the price is within the budget.
 */
export function purchaseFeatures(
  instruction: string,
  facts: ProductFacts,
  selected: readonly string[],
  vocabulary: OptionVocabulary = { values: new Set(), groups: new Set() },
): number[] {
  const budget = budgetOf(instruction);
  const sentence = ` ${words(instruction.replace(/\d+(\.\d+)?\s*dollars?/gi, '')).join(' ')} `;
  const offered = new Set(facts.options.flatMap((g) => g.values.map((v) => v.toLowerCase())));
  const phrase = (value: string) => ` ${words(value).join(' ')} `;
  const candidates = [...new Set([...vocabulary.values, ...offered])].filter(
    (value) => phrase(value).trim() !== '' && sentence.includes(phrase(value)),
  );
  const named = candidates.filter(
    (value) =>
      !candidates.some((other) => other !== value && phrase(other).includes(phrase(value))),
  );
  const optionWords = new Set(named.flatMap((value) => words(value)));
  const wanted = contentWords(sentence).filter(
    (w) => !optionWords.has(w) && !vocabulary.groups.has(w),
  );
  const text = new Set(
    contentWords(`${facts.title} ${facts.description ?? ''} ${facts.features ?? ''}`),
  );
  const title = new Set(contentWords(facts.title));
  const chosen = new Set(selected.map((v) => phrase(v)));
  const share = (count: number, of: number, none: number) => (of > 0 ? count / of : none);
  const price = priceIn(facts.price);
  return [
    share(wanted.filter((w) => text.has(w)).length, wanted.length, 0),
    share(wanted.filter((w) => title.has(w)).length, wanted.length, 0),
    share(named.filter((v) => chosen.has(phrase(v))).length, named.length, 1),
    share(named.filter((v) => !offered.has(v)).length, named.length, 0),
    selected.some((v) => !sentence.includes(phrase(v))) ? 1 : 0,
    budget !== undefined && price !== undefined && price <= budget ? 1 : 0,
  ];
}

function purchaseKey(instruction: string, asin: string, selected: readonly string[]): string {
  return `${instruction}\u0000${asin}\u0000${[...selected].sort().join('\u0000')}`;
}

export function normalizeQuery(query: string): string {
  return query.toLowerCase().replace(/\s+/g, ' ').trim();
}

/** True when `value` and `clicked` belong to the same option group of `item`. */
function sameGroup(item: Omit<ItemView, 'asin'>, value: string, clicked: string): boolean {
  return item.options.some((g) => g.values.includes(value) && g.values.includes(clicked));
}
