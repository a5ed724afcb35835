import { z } from 'zod';
import type { Observation } from '../core/types.ts';
import type { EpisodeStatus, Session } from './session.ts';
import type { TaskPicker } from './tasks.ts';
import { Int } from './validation.ts';

/**
 * Meta's OpenEnv env protocol (`openenv/core/env_server`: `http_server.py`, `types.py`,
 * `serialization.py`), shared by the HTTP routes and the WebSocket session: request shapes,
 * and answers shaped as `serialize_observation` shapes them — `{ observation, reward, done,
 * metadata }` with reward and done lifted out of the observation.
 *
 * `metadata` (our step info: `terminated`, `truncated`, `invalidAction`, …) is sent twice: at the
 * top level, where OpenEnv's `GenericEnvClient` reads it, and inside `observation`, where the
 * typed clients OpenEnv's env template generates read it (`metadata=obs_data.get("metadata")`
 * into the `Observation` base class's own `metadata` field; their `StepResult` has none). Without
 * the second copy an OpenEnv user could not tell a truncated episode from a terminated one.
 */

/**
 * The reset keys served envs take, by name: OpenEnv's `seed` and `episode_id`, plus `task_index`
 * (the task's index in the served split) and `from` (a recorded real state to start from). A key goes here, and only here, to be accepted over
 * HTTP and the WebSocket alike.
 */
export const RESET_KEYS = {
  seed: Int.min(0).nullish(),
  episode_id: z.string().max(255).nullish(),
  task_index: Int.min(0).nullish(),
  /** A served synthetic env starts from step `step` of the buffer's real episode `trajectory`. */
  from: z.strictObject({ trajectory: z.string().min(1).max(255), step: Int.min(0) }).nullish(),
};

/**
 * A reset's parameters with `keys`; any other key is refused with the list of these. OpenEnv
 * passes an env every keyword its `reset` takes, so a key dropped in silence would be a setting
 * the client believes in and the env never saw.
 */
export function resetData<S extends z.ZodRawShape>(keys: S) {
  const accepted = Object.keys(keys).join(', ');
  return z.strictObject(keys, {
    error: (issue) => {
      if (issue.code !== 'unrecognized_keys') return undefined;
      const named = issue.keys.map((key) => JSON.stringify(key)).join(', ');
      return `unknown reset key${issue.keys.length === 1 ? '' : 's'} ${named}; this server's reset takes ${accepted}`;
    },
  });
}

/** Reset parameters: {@link RESET_KEYS}, and no other key. */
export const ResetData = resetData(RESET_KEYS);

/** Our action: one text command, e.g. `search[red mug]` or `go to cabinet 1`. */
export const ActionData = z.strictObject({
  action: z.string().describe('one text action, e.g. "search[red mug]" or "go to cabinet 1"'),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

/** HTTP `/step` body; `timeout_s` and `request_id` are accepted and not used. */
export const StepRequest = z.object({
  action: ActionData,
  timeout_s: z.number().positive().nullish(),
  request_id: z.string().max(255).nullish(),
});

/** The observation model `/schema` advertises: ours, plus OpenEnv's own `done`/`reward`/`metadata`. */
const ObservationModel = z.object({
  text: z.string().describe('the current page or scene as text'),
  instruction: z.string().describe('the task, in words'),
  actions: z.array(z.string()).describe('admissible actions; search[<query>] is a template'),
  done: z.boolean(),
  reward: z.number().nullable(),
  metadata: z.record(z.string(), z.unknown()),
});

/** The state OpenEnv's `/state` and `state` messages carry. */
const StateModel = z.object({
  episode_id: z.string().nullable(),
  step_count: Int.min(0),
  task_id: z.string().optional(),
  instruction: z.string().optional(),
  terminated: z.boolean().optional(),
  truncated: z.boolean().optional(),
  total_reward: z.number().optional(),
});

export type OpenEnvState = z.infer<typeof StateModel>;

/** `/schema`: JSON Schemas of the action, observation and state. */
export function openenvSchemas() {
  return {
    action: z.toJSONSchema(ActionData),
    observation: z.toJSONSchema(ObservationModel),
    state: z.toJSONSchema(StateModel),
  };
}

/** Resets `session` as OpenEnv's reset asks; the answer has no reward yet. */
export async function openenvReset(
  session: Session,
  tasks: TaskPicker,
  data: z.output<typeof ResetData>,
) {
  const options = await tasks.resetOptions({
    ...(data.task_index != null && { taskIndex: data.task_index }),
    ...(data.seed != null && { seed: data.seed }),
    ...(data.from != null && { from: data.from }),
  });
  const episode = await session.reset(options, data.episode_id ?? undefined);
  const metadata = { episode_id: episode.episodeId, task_id: episode.task.id };
  return {
    observation: observationFields(episode.observation, metadata),
    reward: null,
    done: false,
    metadata,
  };
}

/**
 * Steps `session`; `done` is terminated or truncated, both kept apart in `metadata` with the rest
 * of the step info (an invalid action's reason in `invalidAction`).
 */
export async function openenvStep(session: Session, data: z.output<typeof ActionData>) {
  const result = await session.step(data.action);
  const metadata = { ...result.info, terminated: result.terminated, truncated: result.truncated };
  return {
    observation: observationFields(result.observation, metadata),
    reward: result.reward,
    done: result.terminated || result.truncated,
    metadata,
  };
}

/** OpenEnv's state of a session; a session without an episode has OpenEnv's empty state. */
export function openenvState(episode: EpisodeStatus | undefined): OpenEnvState {
  if (!episode) return { episode_id: null, step_count: 0 };
  return {
    episode_id: episode.episodeId,
    step_count: episode.stepCount,
    task_id: episode.task.id,
    instruction: episode.task.instruction,
    terminated: episode.terminated,
    truncated: episode.truncated,
    total_reward: episode.totalReward,
  };
}

function observationFields(observation: Observation, metadata: Record<string, unknown>) {
  return {
    text: observation.text,
    instruction: observation.instruction,
    actions: observation.actions ?? [],
    metadata,
  };
}
