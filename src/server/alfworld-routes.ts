import { type Context, Hono } from 'hono';
import { z } from 'zod';
import { DreamGymError } from '../core/errors.ts';
import type { Observation, StepInfo } from '../core/types.ts';
import type { ServerContext } from './context.ts';
import type { EpisodeStatus } from './session.ts';
import { Int, IntParam, readBody, readQuery } from './validation.ts';

const IdBody = z.object({ id: Int });
const IdQuery = z.object({ id: IntParam });
const ResetBody = z.object({ id: Int, game: Int.min(0), world_type: z.string() });
const StepBody = z.object({ id: Int, action: z.string() });

/** TextWorld's answer to a command that has no effect: how ALFWorld reports an invalid action. */
export const NOTHING_HAPPENS = 'Nothing happens.';

/**
 * AgentGym's ALFWorld server protocol (`agentenv-alfworld`: `server.py`, `env_wrapper.py`,
 * `model.py`), for any served env, mounted under `/alfworld`: sessions are `id`s, `game` on reset
 * is the task index in the served split, and failures come back as HTTP 200 `{ error }` as that
 * server sends them (malformed requests still get a 400, a full server a 503).
 *
 * ALFWorld's step `observation` is the feedback to the command, so it is the env's
 * `info.feedback` where it reports one (our `household` does, word for word as ALFWorld), else
 * the observation text; an invalid action answers "Nothing happens." with reward 0 while the
 * env's state stays as it was. Only `world_type: "Text"` is served. `/detail` reports the episode
 * without ALFWorld's `game` but with `terminated`, `truncated`, `task_id` and the step `info`.
 */
export function alfworldRoutes(ctx: ServerContext): Hono {
  const { sessions, tasks } = ctx;
  const app = new Hono();

  app.get('/', (c) =>
    c.json(
      `This is environment ${ctx.env.name}, served by dreamgym in AgentGym's ALFWorld protocol.`,
    ),
  );
  app.post('/create', async (c) => c.json({ id: (await sessions.create()).id }));

  app.post('/reset', async (c) => {
    const body = await readBody(c, ResetBody);
    if (body.world_type !== 'Text') {
      return c.json({
        error: `world_type "${body.world_type}" is not served: dreamgym envs are text-only, send "Text".`,
      });
    }
    return orError(c, async () => {
      const session = sessions.get(body.id);
      const options = await tasks.resetOptions({ taskIndex: body.game, field: 'game' });
      const { observation, task } = await session.reset(options);
      return {
        id: body.id,
        observation: observation.text,
        available_actions: observation.actions ?? [],
        task_type: taskType(task.spec, task.env),
      };
    });
  });

  app.post('/step', async (c) => {
    const body = await readBody(c, StepBody);
    return orError(c, async () => {
      const result = await sessions.get(body.id).step(body.action);
      return {
        observation: feedback(result.observation, result.info),
        reward: result.reward,
        available_actions: result.observation.actions ?? [],
        done: result.terminated || result.truncated,
      };
    });
  });

  /** The episode of the session named by `?id=` (checked before, so a bad query is a 400). */
  const status = (c: Context, answer: (episode: EpisodeStatus) => unknown) => {
    const { id } = readQuery(c, IdQuery);
    return orError(c, async () => answer(sessions.get(id).status()));
  };
  app.get('/observation', (c) => status(c, (episode) => episode.observation.text));
  app.get('/available_actions', (c) => status(c, (episode) => episode.observation.actions ?? []));
  app.get('/detail', (c) =>
    status(c, (episode) => ({
      world_type: 'Text',
      task_id: episode.task.id,
      observation: feedback(episode.observation, episode.lastInfo),
      available_actions: episode.observation.actions ?? [],
      done: episode.terminated || episode.truncated,
      reward: episode.totalReward,
      terminated: episode.terminated,
      truncated: episode.truncated,
      deleted: false,
      info: episode.lastInfo,
    })),
  );

  app.post('/close', async (c) => {
    const { id } = await readBody(c, IdBody);
    const closed = await sessions.close(id);
    return c.json(closed ? { id, closed } : { id, closed, error: `The id ${id} is not valid.` });
  });
  return app;
}

/** Runs `answer`; an error of ours comes back as ALFWorld's HTTP 200 `{ error }`. */
async function orError(c: Context, answer: () => Promise<unknown>): Promise<Response> {
  try {
    return c.json(await answer());
  } catch (error) {
    if (error instanceof DreamGymError) return c.json({ error: error.message });
    throw error;
  }
}

/** What ALFWorld would print for the last step. */
function feedback(observation: Observation, info: StepInfo): string {
  if (typeof info.feedback === 'string') return info.feedback;
  return info.invalidAction ? NOTHING_HAPPENS : observation.text;
}

/** ALFWorld's `task_type`: the goal type where the task spec names one (our household's). */
function taskType(spec: Record<string, unknown> | undefined, env: string): string {
  const goal = spec?.goal as { type?: unknown } | undefined;
  return typeof goal?.type === 'string' ? goal.type : env;
}
