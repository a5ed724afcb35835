import { type Context, Hono } from 'hono';
import { z } from 'zod';
import type { Observation } from '../core/types.ts';
import type { ServerContext } from './context.ts';
import { Int, IntParam, readBody, readQuery } from './validation.ts';

const EnvIdx = z.object({ env_idx: Int });
const EnvIdxQuery = z.object({ env_idx: IntParam });
const ResetBody = z.object({
  env_idx: Int,
  session_id: Int.min(0).nullish(),
  /** Ours, not WebShop's: a served synthetic env starts from a recorded real state. */
  from: z.strictObject({ trajectory: z.string().min(1).max(255), step: Int.min(0) }).nullish(),
});
const StepBody = z.object({ env_idx: Int, action: z.string() });

/**
 * AgentGym's WebShop server protocol (`agentenv-webshop`: FastAPI, `server.py`/`model.py`), for
 * any served env: sessions are `env_idx` ints, `session_id` on reset is the task index in the
 * served split, and the field names and types are WebShop's.
 *
 * What the answers carry:
 * - `state` / `/observation` are the env's observation text as is: for our `webshop`, its page
 *   one element per line with clickables in brackets (`[Search]`, `[Buy Now]`), not WebShop's
 *   one-line `… [SEP] …` text mode.
 * - `/available_actions` answers WebShop's `{ has_search_bar, clickables }` (clickables
 *   lowercased, as WebShop's server looks them up, with `search` while the page has a search
 *   bar) and, for every env, `available_actions`: the env's admissible actions as it lists them.
 *   WebShop's two fields say nothing of actions not of the form `click[…]` or `search[…]` (a
 *   household's `go to desk 1`); `available_actions` does, for any env (the one field WebShop's
 *   own server does not send).
 * - `/step`'s `info` is our step info plus `terminated` and `truncated` (WebShop sends null);
 *   `done` is either. An invalid action leaves the page as it was, reward 0, and says why in
 *   `info.invalidAction`.
 * - `/state` has no URL or HTML to give: `html` holds the page text.
 */
export function agentgymRoutes(ctx: ServerContext): Hono {
  const { sessions, tasks } = ctx;
  const app = new Hono();

  app.get('/', (c) => c.json('ok'));
  app.get('/list_envs', (c) => c.json(sessions.ids()));
  app.post('/create', async (c) => c.json((await sessions.create()).id));

  app.post('/reset', async (c) => {
    const body = await readBody(c, ResetBody);
    const session = sessions.get(body.env_idx);
    const options = await tasks.resetOptions({
      ...(body.session_id != null && { taskIndex: body.session_id }),
      ...(body.from != null && { from: body.from }),
      field: 'session_id',
    });
    const { observation } = await session.reset(options);
    return c.json([observation.text, null]);
  });

  app.post('/step', async (c) => {
    const body = await readBody(c, StepBody);
    const result = await sessions.get(body.env_idx).step(body.action);
    return c.json({
      state: result.observation.text,
      reward: result.reward,
      done: result.terminated || result.truncated,
      info: { ...result.info, terminated: result.terminated, truncated: result.truncated },
    });
  });

  /** The observation of the session named by `?env_idx=`. */
  const current = (c: Context) =>
    sessions.get(readQuery(c, EnvIdxQuery).env_idx).status().observation;
  app.get('/observation', (c) => c.json(current(c).text));
  app.get('/available_actions', (c) => {
    const observation = current(c);
    return c.json({ ...webshopActions(observation), available_actions: observation.actions ?? [] });
  });
  app.get('/instruction_text', (c) => c.json(`Instruction: ${current(c).instruction}`));
  app.get('/state', (c) => {
    const observation = current(c);
    return c.json({
      url: '',
      html: observation.text,
      instruction_text: `Instruction: ${observation.instruction}`,
    });
  });

  app.post('/close', async (c) => {
    const { env_idx } = await readBody(c, EnvIdx);
    return c.json({ closed: await sessions.close(env_idx) });
  });
  return app;
}

/** WebShop's `{ has_search_bar, clickables }` view of an observation's actions. */
export function webshopActions(observation: Observation): {
  has_search_bar: boolean;
  clickables: string[];
} {
  const actions = observation.actions ?? [];
  const hasSearchBar = actions.some((a) => a.startsWith('search['));
  const clicks = actions
    .map((a) => /^click\[(.*)\]$/s.exec(a)?.[1]?.toLowerCase())
    .filter((label): label is string => label !== undefined);
  return {
    has_search_bar: hasSearchBar,
    clickables: [...(hasSearchBar ? ['search'] : []), ...clicks],
  };
}
