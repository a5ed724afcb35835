import type { Rng } from '../../core/rng.ts';
import type { Observation, Step } from '../../core/types.ts';
import { parseBracketAction } from '../../envs/actions.ts';
import { webshopSpec } from '../../envs/webshop/goals.ts';
import { BUTTONS } from '../../envs/webshop/pages.ts';
import type { Goal } from '../../envs/webshop/types.ts';
import type { Policy, PolicyAction, PolicyContext } from '../policy.ts';

/** The webshop expert's mistake rate. */
export interface WebShopExpertOptions {
  /**
   * Chance of a realistic mistake at each decision: a vaguer query, a wrong item, a missed or
   * wrong option. 0 shops perfectly; 0.3 gives offline data with successes and failures.
   */
  epsilon?: number;
}

const click = (label: string) => `click[${label}]`;
const BUY = click(BUTTONS.buyNow);

/**
 * A scripted shopper that reads the task's goal (its target product, wanted attributes and
 * options) — an expert, allowed for collecting offline data, never as a learned policy.
 *
 * Plan: search for the wanted attributes and product type; page through the results for the
 * target; if it is not there, search its exact title; on the item page pick each wanted option,
 * then buy. With probability ε per decision it errs the way people do.
 */
export class WebShopExpert implements Policy {
  readonly id: string;
  readonly epsilon: number;

  constructor(options: WebShopExpertOptions = {}) {
    this.epsilon = options.epsilon ?? 0;
    if (!(this.epsilon >= 0 && this.epsilon <= 1)) {
      throw new RangeError(`WebShopExpert: epsilon must be in [0, 1], got ${this.epsilon}`);
    }
    this.id = `webshop-expert(eps=${this.epsilon})`;
  }

  async act(
    observation: Observation,
    { task, history, rng }: PolicyContext,
  ): Promise<PolicyAction> {
    const { goal } = webshopSpec(task);
    const actions = observation.actions ?? [];
    const slip = () => rng.chance(this.epsilon);

    if (actions.some((a) => a.startsWith('search['))) {
      return this.search(goal, history, rng, slip());
    }
    if (actions.includes(BUY)) return this.onItem(goal, actions, history, rng, slip);
    if (actions.some((a) => isProductClick(a))) return this.onResults(goal, actions, rng, slip());
    return { action: click(BUTTONS.prev), reasoning: 'back to the item page' };
  }

  private search(goal: Goal, history: readonly Step[], rng: Rng, vague: boolean): PolicyAction {
    const searches = history.filter((s) => s.action.startsWith('search[')).length;
    if (searches > 0) {
      return {
        action: `search[${goal.name}]`,
        reasoning: 'the target was not listed; search its title',
      };
    }
    if (vague) {
      const words = rng.chance(0.5) ? [goal.productType] : rng.sample(goal.attributes, 1);
      return { action: `search[${words.join(' ')}]`, reasoning: 'a vague query (noise)' };
    }
    return {
      action: `search[${[...goal.attributes, goal.productType].join(' ')}]`,
      reasoning: 'search the wanted attributes and product type',
    };
  }

  private onResults(
    goal: Goal,
    actions: readonly string[],
    rng: Rng,
    wrongItem: boolean,
  ): PolicyAction {
    const products = actions.filter(isProductClick);
    const target = click(goal.asin);
    const others = products.filter((a) => a.toLowerCase() !== target.toLowerCase());
    if (wrongItem && others.length > 0) {
      return { action: rng.pick(others), reasoning: 'picked a similar-looking item (noise)' };
    }
    if (products.some((a) => a.toLowerCase() === target.toLowerCase())) {
      return { action: target, reasoning: 'the target item is listed' };
    }
    if (actions.includes(click(BUTTONS.next))) {
      return { action: click(BUTTONS.next), reasoning: 'not on this page; try the next one' };
    }
    return { action: click(BUTTONS.backToSearch), reasoning: 'not in the results; search again' };
  }

  private onItem(
    goal: Goal,
    actions: readonly string[],
    history: readonly Step[],
    rng: Rng,
    slip: () => boolean,
  ): PolicyAction {
    const enteredAt = history.findLastIndex((s) => isProductClick(s.action));
    const clicked = new Set(history.slice(enteredAt + 1).map((s) => s.action.toLowerCase()));
    const available = new Set(actions.map((a) => a.toLowerCase()));
    for (const value of Object.values(goal.options)) {
      const action = click(value);
      if (!available.has(action.toLowerCase()) || clicked.has(action.toLowerCase())) continue;
      if (slip()) {
        if (rng.chance(0.5)) continue;
        const wrong = actions.filter(
          (a) => a.startsWith('click[') && !isButton(a) && a.toLowerCase() !== action.toLowerCase(),
        );
        if (wrong.length > 0)
          return { action: rng.pick(wrong), reasoning: 'a wrong option (noise)' };
      }
      return { action, reasoning: `select the wanted option ${value}` };
    }
    return { action: BUY, reasoning: 'all wanted options chosen' };
  }
}

const BUTTON_LABELS = new Set(Object.values(BUTTONS).map((b) => click(b).toLowerCase()));

function isButton(action: string): boolean {
  return BUTTON_LABELS.has(action.toLowerCase());
}

/** A click on a result's ASIN, e.g. `click[B07ABC1234]`. */
export function isProductClick(action: string): boolean {
  const parsed = parseBracketAction(action);
  return parsed?.verb === 'click' && /^b0[a-z0-9]{8}$/i.test(parsed.arg);
}
