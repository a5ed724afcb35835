import { Rng } from '../core/rng.ts';
import {
  isSuccess,
  type Observation,
  type Step,
  type Task,
  type Trajectory,
} from '../core/types.ts';
import { parseBracketAction } from '../envs/actions.ts';
import { catalogIndex, getCatalog } from '../envs/webshop/catalog.ts';
import { webshopSpec } from '../envs/webshop/goals.ts';
import { BUTTONS } from '../envs/webshop/pages.ts';
import { webshopReward } from '../envs/webshop/reward.ts';
import type { WebShopTaskSpec } from '../envs/webshop/types.ts';
import { isProductClick } from '../policy/experts/webshop-expert.ts';
import type { Policy } from '../policy/policy.ts';

/** One decision of a policy's episode, next to what the expert would have done there. */
export interface JudgedDecision {
  task: Task;
  observation: Observation;
  history: readonly Step[];
  action: string;
  expertAction: string;
  /** What the env answered to the policy's action. */
  next: Observation;
}

/**
 * Names the kind of a decision (`search query`, `item choice`, `go to`, …) and whether the
 * policy's action was as good as the expert's there.
 */
export type DecisionJudge = (d: JudgedDecision) => { kind: string; agree: boolean };

export interface BreakdownRow {
  kind: string;
  decisions: number;
  /** Decisions where the policy did as the expert would. */
  agreed: number;
  /** Failed episodes whose first disagreement with the expert was of this kind. */
  firstErrors: number;
}

export interface Breakdown {
  episodes: number;
  failures: number;
  /** Kinds in order of first errors, then decisions. */
  rows: BreakdownRow[];
}

const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/**
 * Where a policy fails: each decision of its episodes is compared with the error-free expert's
 * choice in the same state (same task, same history), grouped by kind. The first disagreement of
 * a failed episode is where it went wrong; later ones follow from it, since the expert then acts
 * from a state it would not have reached.
 */
export async function decisionBreakdown(
  trajectories: readonly Trajectory[],
  expert: Policy,
  judge: DecisionJudge,
): Promise<Breakdown> {
  const rows = new Map<string, BreakdownRow>();
  const rowOf = (kind: string) => {
    let row = rows.get(kind);
    if (!row) {
      row = { kind, decisions: 0, agreed: 0, firstErrors: 0 };
      rows.set(kind, row);
    }
    return row;
  };
  let failures = 0;
  for (const trajectory of trajectories) {
    const failed = !isSuccess(trajectory);
    if (failed) failures++;
    let erred = false;
    for (let t = 0; t < trajectory.steps.length; t++) {
      const step = trajectory.steps[t] as Step;
      const observation =
        t === 0 ? trajectory.initial : (trajectory.steps[t - 1] as Step).observation;
      const history = trajectory.steps.slice(0, t);
      const { action: expertAction } = await expert.act(observation, {
        task: trajectory.task,
        history,
        rng: new Rng(0).fork('breakdown', t),
      });
      const { kind, agree } = judge({
        task: trajectory.task,
        observation,
        history,
        action: step.action,
        expertAction,
        next: step.observation,
      });
      const row = rowOf(kind);
      row.decisions++;
      if (agree) row.agreed++;
      else if (failed && !erred) row.firstErrors++;
      if (!agree) erred = true;
    }
  }
  return {
    episodes: trajectories.length,
    failures,
    rows: [...rows.values()].sort(
      (a, b) => b.firstErrors - a.firstErrors || b.decisions - a.decisions,
    ),
  };
}

const click = (label: string) => `click[${label}]`;

/**
 * Whether buying the result `action` clicks, with the goal's options, scores 1: several products
 * may fit a goal besides the one it was made from.
 */
function fitsGoal(spec: WebShopTaskSpec, action: string): boolean {
  const asin = parseBracketAction(action)?.arg.toUpperCase() ?? '';
  const product = catalogIndex(getCatalog(spec.catalog)).get(asin);
  if (!product) return false;
  const offered = new Set(product.options.flatMap((g) => g.values.map((v) => v.toLowerCase())));
  return (
    Object.values(spec.goal.options).every((v) => offered.has(v.toLowerCase())) &&
    webshopReward(product, spec.goal, spec.goal.options).reward === 1
  );
}

/**
 * Webshop's decision kinds. A query is judged by its result (the target listed on the first
 * results page), not by its words; a result by whether it can score 1 (the expert's target or
 * another product that fits the goal); the other kinds by the expert's action: `paging` (next page or a new search from the results), `option`, `buy now` (the
 * expert buys: a policy that picks an option instead is late; one that buys at an `option`
 * decision is early), `navigation` (anything else).
 */
export const webshopJudge: DecisionJudge = (d) => {
  if (d.expertAction.startsWith('search[')) {
    const asin = webshopSpec(d.task).goal.asin.toLowerCase();
    return {
      kind: 'search query',
      agree: d.action.startsWith('search[') && d.next.text.toLowerCase().includes(`[${asin}]`),
    };
  }
  const agree = same(d.action, d.expertAction);
  if (isProductClick(d.expertAction)) {
    const fits = isProductClick(d.action) && fitsGoal(webshopSpec(d.task), d.action);
    return { kind: 'item choice', agree: agree || fits };
  }
  if (same(d.expertAction, click(BUTTONS.buyNow))) return { kind: 'buy now', agree };
  if (
    same(d.expertAction, click(BUTTONS.next)) ||
    same(d.expertAction, click(BUTTONS.backToSearch))
  )
    return { kind: 'paging', agree };
  const onItem = (d.observation.actions ?? []).some((a) => same(a, click(BUTTONS.buyNow)));
  return { kind: onItem ? 'option' : 'navigation', agree };
};

/** Household decision kinds: the expert's command verb (`go to`, `open`, `take`, `heat`, …). */
export const householdJudge: DecisionJudge = (d) => {
  const verb = /^(go to|look|inventory|examine|use|[a-z]+)/.exec(
    d.expertAction.trim().toLowerCase(),
  );
  return { kind: verb?.[1] ?? 'other', agree: same(d.action, d.expertAction) };
};

const JUDGES: Record<string, DecisionJudge> = { webshop: webshopJudge, household: householdJudge };

/** Envs with a judge (and a scripted expert to compare with). */
export const JUDGED_ENVS = Object.keys(JUDGES);

/** The judge for a built-in env, or undefined where there is no expert to compare with. */
export function judgeFor(env: string): DecisionJudge | undefined {
  return JUDGES[env];
}

/** The breakdown as a markdown table. */
export function breakdownTable(b: Breakdown): string {
  const pct = (x: number, n: number) => (n ? `${((100 * x) / n).toFixed(1)}%` : '—');
  return [
    `${b.episodes} episodes, ${b.failures} failed`,
    '',
    '| decision | decisions | as the expert | first error of a failed episode |',
    '|---|---|---|---|',
    ...b.rows.map(
      (r) =>
        `| ${r.kind} | ${r.decisions} | ${pct(r.agreed, r.decisions)} | ${r.firstErrors} (${pct(r.firstErrors, b.failures)}) |`,
    ),
  ].join('\n');
}
