import { budgetOf, priceIn } from '../../core/text.ts';
import type { Observation, Step, Task } from '../../core/types.ts';
import type {
  ExperienceModel,
  ExperiencePrediction,
  ExperienceRequest,
} from '../experience-model.ts';
import { anyWrong } from '../uncertainty.ts';
import {
  clickLabel,
  type ItemView,
  isAsin,
  parsePage,
  RESULTS_PER_PAGE,
  type ResultRow,
  renderDetail,
  renderDone,
  renderItem,
  renderResults,
  renderSearch,
  searchQuery,
} from './grammar.ts';
import { normalizeQuery, type WebShopKnowledge } from './knowledge.ts';
import { judgePurchase, type ProductFacts } from './purchase.ts';

/**
 * A purchase pays in full only when every product click on its way was this sure to be possible
 * in the real env (see `WebShopKnowledge.listingPrecision`); below, it pays its reward times that
 * chance, under 1. The measured chances are conservative (a policy clicks what matches, not a
 * random place): of 967 synthetic purchases (expert and random policies, 300 offline episodes),
 * the 25 full successes at chances in [0.75, 0.9) all replayed as real successes; below 0.75,
 * 6 of 10.
 */
const SURE_LISTING = 0.75;

/**
 * The LLM-free experience model for webshop-like envs. It knows the public page grammar and what
 * the replay buffer's real episodes showed (queries and their results, products, purchases and
 * rewards); it predicts a step by (1) replaying what the buffer saw for the same query or product,
 * (2) composing a page of known products for anything new, and (3) staying consistent within the
 * episode: a page shown before is shown again the same way. It offers nothing it has not seen (an
 * item never opened shows no options). Purchases are scored by rules that pay a full success only
 * for what the buffer shows to be one, and a reward model fit on the buffer's real purchases
 * otherwise (see `judgePurchase`), discounted where the way to the product may not exist in the
 * real env. Deterministic; explains each prediction in `reasoning`.
 *
 * Its uncertainty follows the evidence the reasoning names: 0 for what real episodes showed (a
 * query's page, an item, a text) and for the shop's rules (Back to Search, an option, < Prev);
 * for a results page composed of known products, the share of them the real page would not
 * list (`listingPrecision`); for an item never opened, the share of opened items that offered
 * options; 1 for a text borrowed from another product and for an action no rule covers; for a
 * purchase, the chance that its reward or the way to it is wrong (see `purchase`).
 */
export class WebShopExperienceModel implements ExperienceModel {
  readonly id = 'llm-free/webshop';
  /** It learnt the buffer's real episodes beforehand; per-step demonstrations tell it nothing. */
  readonly readsDemonstrations = false;

  constructor(private readonly knowledge: WebShopKnowledge) {}

  async initial(task: Task): Promise<Observation> {
    return { ...renderSearch(task.instruction), instruction: task.instruction };
  }

  async predict({
    task,
    history,
    state,
    action,
  }: ExperienceRequest): Promise<ExperiencePrediction> {
    const out = this.next(task, history, state, action);
    return { ...out, nextState: { ...out.nextState, instruction: task.instruction } };
  }

  private next(
    task: Task,
    history: readonly Step[],
    state: Observation,
    action: string,
  ): {
    reasoning: string;
    nextState: Omit<Observation, 'instruction'>;
    reward: number;
    terminated: boolean;
    uncertainty: number;
  } {
    const page = parsePage(state.text);
    const step = (
      reasoning: string,
      nextState: Omit<Observation, 'instruction'>,
      uncertainty = 0,
    ) => ({
      reasoning,
      nextState,
      reward: 0,
      terminated: false,
      uncertainty,
    });
    const query = searchQuery(action);
    if (query !== undefined) {
      const { rows, total, why, unlisted } = this.resultsFor(query, 1);
      return step(`search "${query}": ${why}`, renderResults(1, total, rows), unlisted);
    }
    const label = clickLabel(action) ?? '';
    if (label === 'Back to Search')
      return step(
        'Back to Search always returns to the search page.',
        renderSearch(task.instruction),
      );
    if (page.kind === 'results') {
      const current = lastQuery(history);
      if (label === 'Next >' || label === '< Prev') {
        const target = page.page + (label === 'Next >' ? 1 : -1);
        const { rows, total, why, unlisted } = this.resultsFor(current ?? '', target);
        return step(
          `${label} turns to page ${target} of "${current}": ${why}`,
          renderResults(target, total, rows),
          unlisted,
        );
      }
      const row = page.rows.find((r) => r.asin.toLowerCase() === label.toLowerCase());
      if (row) return step(...this.itemFor(row, history));
    }
    if (page.kind === 'item') {
      const asin = currentAsin(history) ?? '';
      const item = page.item;
      if (label === '< Prev') {
        const results = [...history]
          .reverse()
          .find((s) => parsePage(s.observation.text).kind === 'results');
        if (results) {
          const { text, actions = [] } = results.observation;
          return step('< Prev returns to the results page the item was opened from.', {
            text,
            actions,
          });
        }
      }
      if (label === 'Description' || label === 'Features') {
        const facts = this.knowledge.products.get(asin);
        const known = label === 'Description' ? facts?.description : facts?.features;
        if (known !== undefined)
          return step(`${label} of ${asin} as a real episode showed it.`, renderDetail(known));
        const similar = this.knowledge.mostSimilar(item.title, asin);
        const borrowed =
          (label === 'Description' ? similar?.description : similar?.features) ?? item.title;
        return step(
          `${label} of ${asin} was never seen; borrowed from the most similar known product ${similar?.asin ?? '(none)'}.`,
          renderDetail(borrowed),
          1,
        );
      }
      if (label === 'Buy Now') return this.purchase(task, history, asin, item);
      if (item.options.some((g) => g.values.some((v) => v.toLowerCase() === label.toLowerCase()))) {
        const value = item.options
          .flatMap((g) => g.values)
          .find((v) => v.toLowerCase() === label.toLowerCase()) as string;
        return step(
          `clicking the option ${value} selects it and acknowledges it.`,
          renderItem(item, value),
        );
      }
    }
    if (page.kind === 'detail' && label === '< Prev') {
      const shown = [...history]
        .reverse()
        .find((s) => parsePage(s.observation.text).kind === 'item');
      const itemPage = shown ? parsePage(shown.observation.text) : undefined;
      if (itemPage?.kind === 'item')
        return step('< Prev returns to the item page.', renderItem(itemPage.item));
    }
    return step(
      `no rule covers "${action}" here; the page stays as it is.`,
      { text: state.text, actions: state.actions ?? [] },
      1,
    );
  }

  /**
   * Rows of results page `page` for a query: as the buffer saw them, else ranked known products,
   * with the share of rows the real page would likely not list (`unlisted`): 0 for a page seen;
   * on a first page composed for an unseen query, 1 − the mean of its places' measured chances
   * of being listed; on other composed pages, 1 − the least of them; 1 for an empty composition.
   */
  private resultsFor(
    query: string,
    page: number,
  ): { rows: ResultRow[]; total: number; why: string; unlisted: number } {
    const seen = this.knowledge.results(query);
    const ranked = this.knowledge.rank(query);
    const total = seen?.total ?? ranked.length;
    const known = seen?.pages.get(page);
    if (known)
      return {
        rows: known,
        total,
        why: `page ${page} as real episodes showed it for this exact query.`,
        unlisted: 0,
      };
    const shownElsewhere = new Set([...(seen?.pages.values() ?? [])].flat().map((r) => r.asin));
    const pool = seen ? ranked.filter((p) => !shownElsewhere.has(p.asin)) : ranked;
    const offset = seen ? 0 : (page - 1) * RESULTS_PER_PAGE;
    const rows = pool
      .slice(offset, offset + RESULTS_PER_PAGE)
      .map(({ asin, title, price }) => ({ asin, title, price }));
    const precision = this.knowledge.listingPrecision(query);
    const listed =
      rows.length === 0
        ? 0
        : !seen && page === 1
          ? rows.reduce((sum, _, place) => sum + (precision[place] as number), 0) / rows.length
          : Math.min(...precision);
    return {
      unlisted: 1 - listed,
      rows,
      total: Math.min(50, Math.max(total, rows.length)),
      why: seen
        ? `the buffer saw this query but not page ${page}; filled with the best-matching known products.`
        : `no real episode sent this query; ranked ${ranked.length} products known from the buffer by their titles and the queries that listed them.`,
    };
  }

  /**
   * The item page of a result row: as seen in the buffer or earlier in this episode, else composed
   * from the row with no options: another product's options would offer choices the real page
   * may not have, and a purchase through them could not be made there.
   */
  private itemFor(
    row: ResultRow,
    history: readonly Step[],
  ): [string, Omit<Observation, 'instruction'>, number] {
    const facts = this.knowledge.products.get(row.asin);
    if (facts && this.knowledge.opened(row.asin)) {
      return [`item ${row.asin} as real episodes showed it.`, renderItem(facts), 0];
    }
    const earlier = history
      .map((s) => parsePage(s.observation.text))
      .find((p) => p.kind === 'item' && p.item.title === row.title);
    if (earlier?.kind === 'item')
      return [
        `item ${row.asin} as shown earlier in this episode.`,
        renderItem({ ...earlier.item }),
        0,
      ];
    // The real page may offer options this one lacks: as often as opened items did.
    return [
      `item ${row.asin} was never opened in the buffer; its options are unknown, so none are offered.`,
      renderItem({ title: row.title, price: row.price, options: [] }),
      this.knowledge.optionShare(),
    ];
  }

  private purchase(
    task: Task,
    history: readonly Step[],
    asin: string,
    item: Omit<ItemView, 'asin'>,
  ): ExperiencePrediction & { uncertainty: number } {
    const facts: ProductFacts = {
      ...this.knowledge.products.get(asin),
      asin,
      title: item.title,
      price: item.price,
      options: item.options,
    };
    const selected = selectedOptions(history);
    const verdict = judgePurchase({
      features: this.knowledge.purchaseFeatures(task.instruction, facts, selected),
      price: priceIn(item.price),
      budget: budgetOf(task.instruction),
      typeShare: this.knowledge.typeShare(task.instruction, item.title),
      seen: this.knowledge.seenReward(task.instruction, asin, selected),
      model: this.knowledge.rewards(),
    });
    const listing = this.listingChance(history);
    const reward =
      listing.chance >= SURE_LISTING
        ? verdict.reward
        : Math.min(0.99, listing.chance * verdict.reward);
    return {
      reasoning: `Buy Now ends the episode; ${verdict.why}: ${verdict.reward.toFixed(3)}; ${listing.why}: ${reward.toFixed(3)} (selected: ${selected.join(', ') || 'no options'}).`,
      nextState: { ...renderDone(reward), instruction: task.instruction },
      reward,
      terminated: true,
      // Wrong if the reward is, or if a product clicked on the way is not listed for real.
      uncertainty: anyWrong(verdict.doubt, 1 - listing.chance),
    };
  }

  /**
   * How likely every product click since the episode's last search is to be possible in the real
   * env: 1 on a results page a real episode showed, the measured chance of its place on a first
   * page composed for an unseen query, and the least of those chances on any other composed page.
   * Moves before the last search do not matter: `Back to Search` leads both envs to the same page.
   */
  private listingChance(history: readonly Step[]): { chance: number; why: string } {
    let chance = 1;
    let query: string | undefined;
    for (let i = history.length - 1; i >= 0 && query === undefined; i--) {
      const step = history[i] as Step;
      query = searchQuery(step.action);
      const label = clickLabel(step.action);
      if (query !== undefined || !label || !isAsin(label) || i === 0) continue;
      const page = parsePage((history[i - 1] as Step).observation.text);
      if (page.kind !== 'results') continue;
      const q = lastQuery(history.slice(0, i)) ?? '';
      const shown = this.knowledge.results(q)?.pages.get(page.page);
      if (shown?.some((r) => r.asin === label)) continue;
      const place = page.rows.findIndex((r) => r.asin === label);
      const precision = this.knowledge.listingPrecision(q);
      chance *=
        page.page === 1 && place >= 0 ? (precision[place] as number) : Math.min(...precision);
    }
    return chance === 1
      ? { chance, why: 'every product clicked was listed on a results page a real episode showed' }
      : {
          chance,
          why: `a product was clicked on a results page composed for a query no real episode sent, listed there for real with chance ${chance.toFixed(2)}`,
        };
  }
}

/** The query of the episode's last search. */
function lastQuery(history: readonly Step[]): string | undefined {
  for (let i = history.length - 1; i >= 0; i--) {
    const q = searchQuery((history[i] as Step).action);
    if (q !== undefined) return normalizeQuery(q);
  }
  return undefined;
}

/** The ASIN of the item opened last in the episode. */
function currentAsin(history: readonly Step[]): string | undefined {
  for (let i = history.length - 1; i >= 0; i--) {
    const label = clickLabel((history[i] as Step).action);
    if (label && isAsin(label)) return label;
  }
  return undefined;
}

/** Option values clicked since the current item was opened (the last click per group wins). */
function selectedOptions(history: readonly Step[]): string[] {
  const selected: string[] = [];
  for (let i = history.length - 1; i >= 0; i--) {
    const step = history[i] as Step;
    const label = clickLabel(step.action);
    if (label && isAsin(label)) break;
    const page = parsePage(step.observation.text);
    if (page.kind === 'item' && page.clicked) {
      const group = page.item.options.find((g) => g.values.includes(page.clicked as string));
      if (!selected.some((v) => group?.values.includes(v))) selected.push(page.clicked);
    }
  }
  return selected.reverse();
}
