import { quoteAction } from '../../core/action-limit.ts';
import {
  EnvClosedError,
  EnvNotResetError,
  EpisodeEndedError,
  TaskError,
} from '../../core/errors.ts';
import { Rng } from '../../core/rng.ts';
import type { Observation, StepInfo, Task } from '../../core/types.ts';
import { parseBracketAction } from '../actions.ts';
import type { Env, ResetOptions, ResetResult, StepResult, TaskSource, TaskSplit } from '../env.ts';
import { TimeLimit } from '../wrappers/time-limit.ts';
import { DEFAULT_CATALOG_SIZE, getCatalog } from './catalog.ts';
import { TEST_TASK_COUNT, webshopSpec, webshopTask, webshopTasks } from './goals.ts';
import {
  BUTTONS,
  detailPage,
  donePage,
  itemPage,
  type Page,
  resultsPage,
  searchPage,
} from './pages.ts';
import { webshopReward } from './reward.ts';
import { type CatalogSearch, catalogSearch, MAX_RESULTS, RESULTS_PER_PAGE } from './search.ts';
import type { CatalogId, Product, WebShopTaskSpec } from './types.ts';

/** Which catalog and task split a webshop env uses, and how many train tasks. */
export interface WebShopOptions {
  /** Which generated catalog to shop in. Default `{ seed: 0, size: 1000 }`. */
  catalog?: Partial<CatalogId>;
  /** Split that `reset({ seed })` draws tasks from when no task is given. Default `train`. */
  split?: TaskSplit;
  /** How many train tasks `reset({ seed })` draws from. Default 10,000. */
  trainPoolSize?: number;
}

type View = 'search' | 'results' | 'item' | 'description' | 'features' | 'done';

interface ShopState {
  view: View;
  results: number[];
  pageNo: number;
  product: Product | undefined;
  selected: Record<string, string>;
}

/**
 * A text web shop after WebShop's text mode (Yao et al., 2022), over a procedurally generated
 * catalog. Actions: `search[query]` on the search page, `click[label]` for any listed button,
 * result ASIN or option value (case-insensitive). `click[Buy Now]` ends the episode with
 * WebShop's reward. Deterministic: the seed only picks the task.
 *
 * This class has no step limit; {@link makeWebShop} wraps it in {@link TimeLimit} (15 steps).
 */
export class WebShopEnv implements Env, TaskSource {
  readonly name = 'webshop';
  readonly catalogId: CatalogId;
  readonly products: readonly Product[];
  private readonly byAsin: Map<string, Product>;
  private readonly split: TaskSplit;
  private readonly trainPoolSize: number;
  private searchIndex: CatalogSearch | undefined;
  private task: Task | undefined;
  private spec: WebShopTaskSpec | undefined;
  private state: ShopState | undefined;
  private current: Page | undefined;
  private closed = false;

  constructor(options: WebShopOptions = {}) {
    this.catalogId = {
      seed: options.catalog?.seed ?? 0,
      size: options.catalog?.size ?? DEFAULT_CATALOG_SIZE,
    };
    this.products = getCatalog(this.catalogId);
    this.byAsin = new Map(this.products.map((p) => [p.asin.toLowerCase(), p]));
    this.split = options.split ?? 'train';
    this.trainPoolSize = options.trainPoolSize ?? 10_000;
  }

  tasks(split: TaskSplit, count?: number): Task[] {
    return webshopTasks(this.catalogId, this.products as Product[], split, count);
  }

  async reset(options: ResetOptions = {}): Promise<ResetResult> {
    if (this.closed) throw new EnvClosedError(this.name);
    const task = options.task ?? this.drawTask(options.seed ?? 0);
    this.spec = this.checkTask(task);
    this.task = task;
    this.state = { view: 'search', results: [], pageNo: 1, product: undefined, selected: {} };
    this.current = searchPage(task.instruction);
    return { observation: this.observe(), info: { task, catalog: this.catalogId } };
  }

  async step(action: string): Promise<StepResult> {
    if (this.closed) throw new EnvClosedError(this.name);
    const state = this.state;
    if (!state || !this.spec) throw new EnvNotResetError(this.name);
    if (state.view === 'done') throw new EpisodeEndedError(this.name, 'terminated');

    const parsed = parseBracketAction(action);
    if (!parsed) {
      return this.invalid(
        `${quoteAction(action)} is not an action: write search[query] or click[label].`,
      );
    }
    if (parsed.verb === 'search') {
      if (state.view !== 'search') {
        return this.invalid('search[...] works only on the search page: click[Back to Search].');
      }
      if (parsed.arg.length === 0) return this.invalid('search[] needs a query.');
      return this.search(parsed.arg);
    }
    if (parsed.verb === 'click') return this.click(parsed.arg);
    return this.invalid(`unknown action "${parsed.verb}": use search[query] or click[label].`);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.state = undefined;
  }

  private drawTask(seed: number): Task {
    const rng = new Rng(seed).fork('webshop-task');
    const index =
      this.split === 'test'
        ? rng.int(TEST_TASK_COUNT)
        : TEST_TASK_COUNT + rng.int(this.trainPoolSize);
    return webshopTask(this.catalogId, this.products as Product[], index);
  }

  private checkTask(task: Task): WebShopTaskSpec {
    const spec = webshopSpec(task);
    const { seed, size } = spec.catalog;
    if (seed !== this.catalogId.seed || size !== this.catalogId.size) {
      throw new TaskError(
        `task ${task.id} comes from catalog seed ${seed} size ${size}, but this env has seed ${this.catalogId.seed} size ${this.catalogId.size}; create the env with catalog { seed: ${seed}, size: ${size} }.`,
      );
    }
    return spec;
  }

  private search(query: string): StepResult {
    const state = this.state as ShopState;
    this.searchIndex ??= catalogSearch(this.products);
    state.results = this.searchIndex.search(query, MAX_RESULTS);
    state.pageNo = 1;
    state.view = 'results';
    return this.show(this.renderResults());
  }

  private click(label: string): StepResult {
    const state = this.state as ShopState;
    const target = label.toLowerCase();
    const page = this.current as Page;
    if (!page.actions.some((a) => a.toLowerCase() === `click[${target}]`)) {
      return this.invalid(
        `there is no [${label}] on this page; clickable: ${page.actions.filter((a) => a.startsWith('click[')).join(', ') || 'nothing (use search[query])'}.`,
      );
    }
    if (target === BUTTONS.backToSearch.toLowerCase()) {
      Object.assign(state, { view: 'search', results: [], pageNo: 1, product: undefined });
      state.selected = {};
      return this.show(searchPage(this.task?.instruction ?? ''));
    }
    switch (state.view) {
      case 'results':
        return this.clickOnResults(target);
      case 'item':
        return this.clickOnItem(target);
      default:
        // Description and Features pages only have Back to Search and < Prev.
        state.view = 'item';
        return this.show(itemPage(state.product as Product));
    }
  }

  private clickOnResults(target: string): StepResult {
    const state = this.state as ShopState;
    if (target === BUTTONS.next.toLowerCase()) state.pageNo += 1;
    else if (target === BUTTONS.prev.toLowerCase()) state.pageNo -= 1;
    else {
      state.product = this.byAsin.get(target);
      state.selected = {};
      state.view = 'item';
      return this.show(itemPage(state.product as Product));
    }
    return this.show(this.renderResults());
  }

  private clickOnItem(target: string): StepResult {
    const state = this.state as ShopState;
    const product = state.product as Product;
    if (target === BUTTONS.prev.toLowerCase()) {
      state.view = 'results';
      return this.show(this.renderResults());
    }
    if (target === BUTTONS.description.toLowerCase()) {
      state.view = 'description';
      return this.show(detailPage(product.description));
    }
    if (target === BUTTONS.features.toLowerCase()) {
      state.view = 'features';
      return this.show(detailPage(product.features.join('\n')));
    }
    if (target === BUTTONS.buyNow.toLowerCase()) return this.buy(product);
    for (const group of product.options) {
      const value = group.values.find((v) => v.toLowerCase() === target);
      if (value !== undefined) {
        state.selected[group.name] = value;
        return this.show(itemPage(product, `You have clicked ${value}.`));
      }
    }
    return this.invalid(`[${target}] is not a button of this item page.`);
  }

  private buy(product: Product): StepResult {
    const state = this.state as ShopState;
    const spec = this.spec as WebShopTaskSpec;
    const breakdown = webshopReward(product, spec.goal, state.selected);
    state.view = 'done';
    this.current = donePage(breakdown.reward);
    return {
      observation: this.observe(),
      reward: breakdown.reward,
      terminated: true,
      truncated: false,
      info: { asin: product.asin, selectedOptions: { ...state.selected }, ...breakdown },
    };
  }

  private renderResults(): Page {
    const state = this.state as ShopState;
    const pageCount = Math.max(1, Math.ceil(state.results.length / RESULTS_PER_PAGE));
    const start = (state.pageNo - 1) * RESULTS_PER_PAGE;
    const shown = state.results
      .slice(start, start + RESULTS_PER_PAGE)
      .map((i) => this.products[i] as Product);
    return resultsPage(shown, state.pageNo, state.results.length, pageCount);
  }

  private show(page: Page, info: StepInfo = {}): StepResult {
    this.current = page;
    return { observation: this.observe(), reward: 0, terminated: false, truncated: false, info };
  }

  private invalid(reason: string): StepResult {
    return {
      observation: this.observe(),
      reward: 0,
      terminated: false,
      truncated: false,
      info: { invalidAction: reason },
    };
  }

  private observe(): Observation {
    const page = this.current as Page;
    return {
      text: page.text,
      instruction: this.task?.instruction ?? '',
      actions: [...page.actions],
    };
  }
}

/** `WebShopOptions` and the step limit of `makeWebShop`. */
export interface MakeWebShopOptions extends WebShopOptions {
  /** Step limit (WebShop's default of 15). */
  maxSteps?: number;
}

/** WebShop's step limit. */
export const WEBSHOP_MAX_STEPS = 15;

/** The webshop env as users get it: {@link WebShopEnv} inside a 15-step {@link TimeLimit}. */
export function makeWebShop(options: MakeWebShopOptions = {}): TimeLimit {
  return new TimeLimit(new WebShopEnv(options), options.maxSteps ?? WEBSHOP_MAX_STEPS);
}
