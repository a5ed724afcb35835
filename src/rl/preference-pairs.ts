import { Rng } from '../core/rng.ts';
import { finalReward, type Observation, type Trajectory } from '../core/types.ts';
import type { Policy, RecordedDecision } from '../policy/policy.ts';
import { decisionsOf } from './bc.ts';

/** Where a preference pair came from (see {@link offlinePreferencePairs}, {@link expertPreferencePairs}). */
export type PairSource = 'same-state' | 'divergence' | 'expert';

/**
 * Two actions in one state, the better first: what DPO learns from. Both actions are scored in
 * the same context (`decision`), so their log-probabilities differ by the action alone.
 */
export interface PreferencePair {
  /** The state: its observation, and the episode's actions and replies before it. */
  decision: Omit<RecordedDecision, 'action'>;
  chosen: string;
  rejected: string;
  taskId: string;
  /** The episode and step (0-based) whose context `decision` is. */
  episodeId: string;
  step: number;
  source: PairSource;
}

/** Which episodes count as successes, and the seed that orders the pairs. */
export interface PreferencePairOptions {
  /** An episode whose final reward reaches this is a success; below it, a failure. Default 1. */
  minReward?: number;
  /** Shuffles the pairs (DPO's validation split takes the first ones). Default 0. */
  seed?: number;
}

/**
 * Preference pairs from offline trajectories alone, at two levels, without duplicates:
 *
 * - **same state** (decision level): where a successful episode and a failed one stood in the
 *   same state (same task, observation and admissible actions), each action the failed episodes
 *   took there that no successful episode took is rejected against the action the successful
 *   episodes took there most often (the first seen on a tie), in the first such successful
 *   episode's context;
 * - **divergence** (episode level): for a success and a failure of the same task, the first step
 *   where their actions differ, when both stood in the same state there (a deterministic env
 *   puts them there after the same actions), unless a success took the rejected action there
 *   too; it adds to the same-state pairs the successes' less frequent choices. We pair that
 *   decision rather than the whole episodes' log-probability sums: past the divergence the two
 *   episodes see different states, and the decisions there say nothing about which action was
 *   better.
 *
 * Data with one episode per task, from different states, yields no pair: such data needs a
 * labeller ({@link expertPreferencePairs}). The order is shuffled from `seed`, so the same data
 * and seed give the same pairs in the same order.
 */
export function offlinePreferencePairs(
  trajectories: readonly Trajectory[],
  { minReward = 1, seed = 0 }: PreferencePairOptions = {},
): PreferencePair[] {
  const succeeded = (t: Trajectory) => finalReward(t) >= minReward;
  const pairs = new Map<string, PreferencePair>();
  const add = (pair: PreferencePair) => {
    const key = pairKey(pair);
    if (!pairs.has(key)) pairs.set(key, pair);
  };

  interface StateSeen {
    taskId: string;
    /** Actions successful episodes took here, with how often. */
    wins: Map<string, number>;
    /** The first successful episode's decision here. */
    context?: { decision: RecordedDecision; episodeId: string; step: number };
    /** Actions failed episodes took here, in order. */
    losses: string[];
  }
  const byState = new Map<string, StateSeen>();
  for (const trajectory of trajectories) {
    const success = succeeded(trajectory);
    for (const [step, decision] of decisionsOf([trajectory]).entries()) {
      const key = stateKey(trajectory.task.id, decision.observation);
      const state: StateSeen = byState.get(key) ?? {
        taskId: trajectory.task.id,
        wins: new Map(),
        losses: [],
      };
      byState.set(key, state);
      if (success) {
        state.wins.set(decision.action, (state.wins.get(decision.action) ?? 0) + 1);
        state.context ??= { decision, episodeId: trajectory.id, step };
      } else if (!state.losses.includes(decision.action)) state.losses.push(decision.action);
    }
  }
  for (const state of byState.values()) {
    if (!state.context) continue;
    const chosen = mostFrequent(state.wins);
    for (const rejected of state.losses) {
      if (state.wins.has(rejected)) continue;
      add({
        decision: contextOf(state.context.decision),
        episodeId: state.context.episodeId,
        step: state.context.step,
        chosen,
        rejected,
        taskId: state.taskId,
        source: 'same-state',
      });
    }
  }

  for (const [taskId, episodes] of groupBy(trajectories, (t) => t.task.id)) {
    const successes = episodes.filter(succeeded);
    const failures = episodes.filter((t) => !succeeded(t));
    for (const success of successes) {
      const decisions = decisionsOf([success]);
      for (const failure of failures) {
        const at = success.steps.findIndex((s, i) => s.action !== failure.steps[i]?.action);
        const rejected = failure.steps[at]?.action;
        const context = decisions[at];
        if (at < 0 || rejected === undefined || !context) continue;
        const failedState = at === 0 ? failure.initial : failure.steps[at - 1]?.observation;
        const key = stateKey(taskId, context.observation);
        // Another success took the rejected action here: it did not cause the failure.
        if (
          !failedState ||
          stateKey(taskId, failedState) !== key ||
          byState.get(key)?.wins.has(rejected)
        )
          continue;
        add({
          decision: contextOf(context),
          episodeId: success.id,
          step: at,
          chosen: context.action,
          rejected,
          taskId,
          source: 'divergence',
        });
      }
    }
  }
  return new Rng(seed).fork('preference-pairs').shuffle([...pairs.values()]);
}

/**
 * Decision-level pairs labelled by an expert: in every state of the trajectories, what `expert`
 * (a mistake-free scripted expert, say) does there is chosen over the action taken, where they
 * differ — the noisy expert's ε-mistakes, and a failed episode's wrong turns. The expert sees the
 * episode so far (its task, history and replies) and is asked with a random stream from `seed`;
 * no env step is taken. The labels are knowledge the offline data alone does not hold: a row
 * trained on them says so. Pairs come shuffled from `seed`, without duplicates.
 */
export async function expertPreferencePairs(
  trajectories: readonly Trajectory[],
  expert: Policy,
  { seed = 0 }: Pick<PreferencePairOptions, 'seed'> = {},
): Promise<PreferencePair[]> {
  const rng = new Rng(seed).fork('expert-labels');
  const pairs = new Map<string, PreferencePair>();
  for (const trajectory of trajectories) {
    const decisions = decisionsOf([trajectory]);
    for (const [i, decision] of decisions.entries()) {
      const { action } = await expert.act(decision.observation, {
        task: trajectory.task,
        history: trajectory.steps.slice(0, i),
        rng: rng.fork(trajectory.id, i),
      });
      if (action === decision.action) continue;
      const pair: PreferencePair = {
        decision: contextOf(decision),
        episodeId: trajectory.id,
        step: i,
        chosen: action,
        rejected: decision.action,
        taskId: trajectory.task.id,
        source: 'expert',
      };
      const key = pairKey(pair);
      if (!pairs.has(key)) pairs.set(key, pair);
    }
  }
  return new Rng(seed).fork('preference-pairs').shuffle([...pairs.values()]);
}

/** The pair's decisions as recorded decisions: the chosen one, then the rejected one. */
export function pairDecisions(pair: PreferencePair): [RecordedDecision, RecordedDecision] {
  return [
    { ...pair.decision, action: pair.chosen },
    { ...pair.decision, action: pair.rejected },
  ];
}

/** A state by task, observation and admissible actions (the history is the context's). */
function stateKey(taskId: string, observation: Observation): string {
  return JSON.stringify([
    taskId,
    observation.instruction,
    observation.text,
    observation.actions ?? [],
  ]);
}

function pairKey(pair: PreferencePair): string {
  return JSON.stringify([
    stateKey(pair.taskId, pair.decision.observation),
    pair.chosen,
    pair.rejected,
  ]);
}

function contextOf({ action: _, ...context }: RecordedDecision): Omit<RecordedDecision, 'action'> {
  return context;
}

/** The key counted most often; the first inserted on a tie. */
function mostFrequent(counts: ReadonlyMap<string, number>): string {
  let best: [string, number] = ['', -1];
  for (const entry of counts) if (entry[1] > best[1]) best = entry;
  return best[0];
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
}
