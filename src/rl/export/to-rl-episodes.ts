/**
 * Trajectories → `dreamgym.rl-episode` lines: each episode written as the chat the LLM policy had
 * (its prompts rebuilt by the policy's own prompt functions, its answers in its answer format)
 * with GRPO's group advantage from `grpo` in `advantages.ts`. Pure and deterministic: the same
 * trajectories and options give the same lines.
 */
import { DreamGymError } from '../../core/errors.ts';
import {
  finalReward,
  isJudged,
  isSuccess,
  type Step,
  type Trajectory,
  totalReward,
} from '../../core/types.ts';
import {
  assistantMessage,
  type PromptOptions,
  type ResolvedPromptOptions,
  resolvePromptOptions,
  systemMessage,
  userMessage,
} from '../../policy/llm/prompt.ts';
import { type EpisodeRewards, grpo } from '../advantages.ts';
import {
  RL_EPISODE_FORMAT,
  RL_EPISODE_FORMAT_VERSION,
  type RlEpisode,
  type RlMessage,
} from './rl-episode.ts';

/** The trajectories cannot be exported as asked; the message says how to fix the input. */
export class RlExportError extends DreamGymError {
  override name = 'RlExportError';
}

export interface RlExportOptions extends PromptOptions {
  /** GRPO: divide by the group's reward standard deviation. Default true. */
  normalizeStd?: boolean;
}

export interface RlExport {
  /** Grouped by task, groups in order of first appearance, episodes in input order. */
  episodes: RlEpisode[];
  groups: number;
  /** Groups whose episodes' rewards differ: the others have advantage 0 and teach nothing. */
  informativeGroups: number;
  /** Recoverable problems with the input (skipped episodes, single-episode groups). */
  warnings: string[];
}

/**
 * Groups trajectories by task id and writes each as a line. Episodes without steps are skipped
 * (they have no turn to train), and so are unjudged synthetic endings (`isJudged`); duplicate episode ids, and input where no task has two episodes
 * (GRPO then has nothing to compare), are refused.
 */
export function toRlEpisodes(
  trajectories: readonly Trajectory[],
  options: RlExportOptions = {},
): RlExport {
  const prompt = resolvePromptOptions(options);
  refuseDuplicateIds(trajectories);
  const warnings: string[] = [];
  const stepped = trajectories.filter((t) => t.steps.length > 0);
  if (stepped.length < trajectories.length)
    warnings.push(
      `skipped ${trajectories.length - stepped.length} episodes without steps: they have no turn to train.`,
    );
  const played = stepped.filter(isJudged);
  if (played.length < stepped.length)
    warnings.push(
      `skipped ${stepped.length - played.length} synthetic episodes whose ending the experience model could not judge (info.unjudged): their reward is a guess.`,
    );
  const groups = groupByTask(played);
  const singles = groups.filter((g) => g.length === 1).length;
  if (singles === groups.length)
    throw new RlExportError(
      `every task has a single episode, so GRPO has nothing to compare; roll out several episodes per task (export-rl --env … --group-size 8), or export a file that has them.`,
    );
  if (singles > 0)
    warnings.push(
      `${singles} of ${groups.length} tasks have a single episode: their advantage is 0.`,
    );
  const ordered = groups.flat();
  const { advantages } = grpo(ordered.map(episodeRewards), {
    normalizeStd: options.normalizeStd ?? true,
  });
  const informativeGroups = groups.filter(
    (g) => new Set(g.map((t) => totalReward(t))).size > 1,
  ).length;
  const episodes = ordered.map((t, i) => toRlEpisode(t, advantages[i]?.[0] ?? 0, prompt));
  return { episodes, groups: groups.length, informativeGroups, warnings };
}

/** The chat of one episode: system, then per step the policy's prompt and its answer. */
export function episodeMessages(
  trajectory: Trajectory,
  prompt: ResolvedPromptOptions,
): RlMessage[] {
  const { task, initial, steps } = trajectory;
  const messages: RlMessage[] = [
    { role: 'system', content: systemMessage(task.env, prompt), trainable: false },
  ];
  steps.forEach((step, t) => {
    const observation = t === 0 ? initial : (steps[t - 1] as Step).observation;
    const user = userMessage(task, steps.slice(0, t), observation, prompt);
    messages.push({ role: 'user', content: user, trainable: false });
    messages.push({ role: 'assistant', content: assistantMessage(step, prompt), trainable: true });
  });
  return messages;
}

function toRlEpisode(
  trajectory: Trajectory,
  advantage: number,
  prompt: ResolvedPromptOptions,
): RlEpisode {
  const last = trajectory.steps.at(-1) as Step;
  const episode: RlEpisode = {
    format: RL_EPISODE_FORMAT,
    version: RL_EPISODE_FORMAT_VERSION,
    group_id: trajectory.task.id,
    episode_id: trajectory.id,
    env: trajectory.env,
    policy_id: trajectory.policyId,
    provenance: trajectory.provenance,
    messages: episodeMessages(trajectory, prompt),
    rewards: trajectory.steps.map((s) => s.reward),
    final_reward: finalReward(trajectory),
    total_reward: totalReward(trajectory),
    advantage,
    success: isSuccess(trajectory),
    terminated: last.terminated,
    truncated: last.truncated,
  };
  if (last.truncated && last.info?.truncatedBy) episode.truncated_by = last.info.truncatedBy;
  return episode;
}

function episodeRewards(trajectory: Trajectory): EpisodeRewards {
  const last = trajectory.steps.at(-1);
  return {
    groupId: trajectory.task.id,
    rewards: trajectory.steps.map((s) => s.reward),
    values: trajectory.steps.map(() => 0),
    terminated: last?.terminated ?? false,
    truncated: last?.truncated ?? false,
    bootstrapValue: 0,
  };
}

function groupByTask(trajectories: readonly Trajectory[]): Trajectory[][] {
  const groups = new Map<string, Trajectory[]>();
  for (const t of trajectories) {
    const group = groups.get(t.task.id);
    if (group) group.push(t);
    else groups.set(t.task.id, [t]);
  }
  return [...groups.values()];
}

function refuseDuplicateIds(trajectories: readonly Trajectory[]): void {
  const seen = new Set<string>();
  for (const t of trajectories) {
    if (seen.has(t.id))
      throw new RlExportError(
        `episode id "${t.id}" appears more than once; the input holds the same episode twice (a file concatenated with itself?). Remove the duplicates.`,
      );
    seen.add(t.id);
  }
}
