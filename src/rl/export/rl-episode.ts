/**
 * The `dreamgym export-rl` line format (`dreamgym.rl-episode`, version 1; see
 * docs/export-rl-format.md): one episode a line, as the chat the LLM policy had, with the turns
 * it wrote marked trainable, its rewards and its GRPO group advantage. Field names are snake_case,
 * as the Python trainers that read it write theirs.
 */
import { z } from 'zod';

export const RL_EPISODE_FORMAT = 'dreamgym.rl-episode';
export const RL_EPISODE_FORMAT_VERSION = 1;

export const rlMessageSchema = z.strictObject({
  role: z.enum(['system', 'user', 'assistant']),
  content: z.string(),
  /** Whether the policy wrote this message: the loss covers exactly these. */
  trainable: z.boolean(),
});
export type RlMessage = z.infer<typeof rlMessageSchema>;

export const rlEpisodeSchema = z
  .strictObject({
    format: z.literal(RL_EPISODE_FORMAT),
    version: z.literal(RL_EPISODE_FORMAT_VERSION),
    /** The task id: GRPO compares the episodes of one group. */
    group_id: z.string().min(1),
    episode_id: z.string().min(1),
    env: z.string().min(1),
    policy_id: z.string().min(1),
    provenance: z.enum(['real-offline', 'real-online', 'synthetic']),
    /** system, then user and assistant alternating: one (user, assistant) pair per step. */
    messages: z.array(rlMessageSchema),
    /** Each step's reward, in the order of the assistant messages. */
    rewards: z.array(z.number()),
    final_reward: z.number(),
    total_reward: z.number(),
    /** GRPO: (total reward − group mean) / group std, the same for every assistant turn. */
    advantage: z.number(),
    success: z.boolean(),
    terminated: z.boolean(),
    truncated: z.boolean(),
    /** Why the episode was truncated (`time-limit`, `policy-error`, …), when it was. */
    truncated_by: z.string().optional(),
  })
  .superRefine((episode, ctx) => {
    const problem = conversationProblem(episode.messages, episode.rewards.length);
    if (problem) ctx.addIssue({ code: 'custom', path: ['messages'], message: problem });
    if (episode.final_reward !== episode.rewards.at(-1))
      ctx.addIssue({
        code: 'custom',
        path: ['final_reward'],
        message: `is ${episode.final_reward} but the last step's reward is ${episode.rewards.at(-1)}`,
      });
    const sum = episode.rewards.reduce((s, r) => s + r, 0);
    if (Math.abs(episode.total_reward - sum) > 1e-9)
      ctx.addIssue({
        code: 'custom',
        path: ['total_reward'],
        message: `is ${episode.total_reward} but the rewards sum to ${sum}`,
      });
  });
export type RlEpisode = z.infer<typeof rlEpisodeSchema>;

/** What is wrong with a conversation's shape, if anything. */
function conversationProblem(messages: readonly RlMessage[], steps: number): string | undefined {
  if (messages[0]?.role !== 'system') return 'the first message must be the system message';
  if (messages.length !== 1 + 2 * steps)
    return `${messages.length} messages for ${steps} rewards; expected 1 + 2 per step (user, assistant)`;
  for (const [i, message] of messages.entries()) {
    const role = i === 0 ? 'system' : i % 2 === 1 ? 'user' : 'assistant';
    if (message.role !== role) return `message ${i} is ${message.role}, expected ${role}`;
    if (message.trainable !== (role === 'assistant'))
      return `message ${i} (${role}) has trainable ${message.trainable}; only assistant messages are trainable`;
  }
  return undefined;
}

/** One line, validated first. */
export function encodeRlEpisode(episode: RlEpisode): string {
  return JSON.stringify(rlEpisodeSchema.parse(episode));
}

/** Parses one line; throws an Error listing each problem as `field: problem`. */
export function parseRlEpisodeLine(text: string): RlEpisode {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`not JSON: ${(error as Error).message}`);
  }
  const result = rlEpisodeSchema.safeParse(value);
  if (result.success) return result.data;
  throw new Error(
    result.error.issues.map((i) => `${i.path.join('.') || '(line)'}: ${i.message}`).join('; '),
  );
}
