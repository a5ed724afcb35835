/**
 * Offline variations of a webshop task: the same target product wanted with other attributes,
 * other options or another budget, phrased anew in the env's style.
 *
 * It never reads the catalog: the curriculum feeds the synthetic loop, which may learn about the
 * real env only from its tasks and the replay buffer. What it knows of the target product comes
 * from the pool's goals for that product (same catalog and ASIN), the parent's included: each goal
 * attribute is one of the product's attributes, each goal option value one of its values, and each
 * budget is above its price. A goal built only from those facts is one the target product meets in
 * full, so every variation keeps a spec the real webshop runs, and buying the target scores 1.
 */
import { TaskError } from '../../core/errors.ts';
import type { Task } from '../../core/types.ts';
import { budgetAbove, webshopSpec } from '../../envs/webshop/goals.ts';
import type { Goal, WebShopTaskSpec } from '../../envs/webshop/types.ts';
import { generatedTask } from '../task-identity.ts';
import type { PoolView, TaskGenerator } from './generator.ts';
import { type Candidate, takeVaried } from './take-varied.ts';
import { phraseWebShopGoal } from './webshop-phrasing.ts';

/** WebShop's goals want one to three attributes. */
const MAX_ATTRIBUTES = 3;

/** What the pool's goals reveal about one product. */
interface ProductFacts {
  attributes: string[];
  /** Option values by group name. */
  options: Map<string, string[]>;
  /** The lowest budget of any goal for the product: at or above its price. */
  lowestBudget: number;
}

type GoalChange = Pick<Goal, 'attributes' | 'options' | 'priceUpper'>;

export const webshopMutator: TaskGenerator = {
  name: 'webshop-mutator',
  async generate({ parent, count, pool, rng }) {
    let spec: WebShopTaskSpec;
    try {
      spec = webshopSpec(parent);
    } catch (error) {
      if (error instanceof TaskError)
        return { tasks: [], warnings: [`webshop-mutator: ${error.message}`] };
      throw error;
    }
    const { goal } = spec;
    const build = (change: GoalChange): Task => {
      const instruction = phraseWebShopGoal({ productType: goal.productType, ...change }, rng);
      const varied: Goal = {
        ...goal,
        categoryPath: [...goal.categoryPath],
        ...change,
        instruction,
      };
      return generatedTask(parent, instruction, { catalog: { ...spec.catalog }, goal: varied });
    };
    const candidates = goalChanges(goal, productFacts(spec, pool));
    return { tasks: takeVaried(candidates, count, build, pool, rng), warnings: [] };
  },
};

/** Facts about the parent's target product from every pooled goal for it. */
function productFacts(parent: WebShopTaskSpec, pool: PoolView): ProductFacts {
  const { catalog, goal } = parent;
  const facts: ProductFacts = { attributes: [], options: new Map(), lowestBudget: goal.priceUpper };
  const goals = [
    goal,
    ...pool
      .tasks({ env: 'webshop', realizable: true })
      .map((e) => e.task.spec as unknown as WebShopTaskSpec)
      .filter((s) => s.catalog.seed === catalog.seed && s.catalog.size === catalog.size)
      .map((s) => s.goal)
      .filter((g) => g.asin === goal.asin),
  ];
  for (const g of goals) {
    for (const a of g.attributes) if (!facts.attributes.includes(a)) facts.attributes.push(a);
    for (const [group, value] of Object.entries(g.options)) {
      const values = facts.options.get(group) ?? [];
      if (!values.includes(value)) facts.options.set(group, [...values, value]);
    }
    facts.lowestBudget = Math.min(facts.lowestBudget, g.priceUpper);
  }
  return facts;
}

/**
 * Every one-step change of the goal the facts allow: drop, swap or add an attribute; drop an
 * option, pick another known value or add a known group; a tighter budget (down to the lowest known
 * one) or a looser one.
 */
function goalChanges(goal: Goal, facts: ProductFacts): Candidate<GoalChange>[] {
  const same: GoalChange = {
    attributes: goal.attributes,
    options: goal.options,
    priceUpper: goal.priceUpper,
  };
  const out: Candidate<GoalChange>[] = [];
  const withAttributes = (attributes: string[]) =>
    out.push({ kind: 'attributes', change: { ...same, attributes } });
  const others = facts.attributes.filter((a) => !goal.attributes.includes(a));
  goal.attributes.forEach((_, i) => {
    const rest = goal.attributes.filter((__, j) => j !== i);
    if (rest.length > 0) withAttributes(rest);
    for (const other of others)
      withAttributes(goal.attributes.map((a, j) => (j === i ? other : a)));
  });
  if (goal.attributes.length < MAX_ATTRIBUTES) {
    for (const other of others) withAttributes([...goal.attributes, other]);
  }

  for (const [group, values] of facts.options) {
    const current = goal.options[group];
    if (current !== undefined) {
      const { [group]: _dropped, ...rest } = goal.options;
      out.push({ kind: 'options', change: { ...same, options: rest } });
    }
    for (const value of values.filter((v) => v !== current)) {
      out.push({
        kind: 'options',
        change: { ...same, options: { ...goal.options, [group]: value } },
      });
    }
  }

  const budgets = new Set([
    facts.lowestBudget,
    budgetAbove((facts.lowestBudget + goal.priceUpper) / 2),
    budgetAbove(goal.priceUpper * 1.5),
  ]);
  for (const priceUpper of budgets) {
    if (priceUpper !== goal.priceUpper)
      out.push({ kind: 'budget', change: { ...same, priceUpper } });
  }
  return out;
}
