import { z } from 'zod';
import type { Observation } from '../../core/types.ts';
import { parseBracketAction } from '../actions.ts';
import {
  AgentGymEnv,
  type AgentGymEnvOptions,
  type Outcome,
  type Refusal,
  type ServedEpisode,
} from './agentgym-env.ts';

/** The action template listed while the page has a search bar. */
export const SEARCH_TEMPLATE = 'search[<query>]';

// Answers of AgentGym's agentenv-webshop server (FastAPI; `agentenv_webshop/server.py`, `model.py`).
const EnvIdx = z.number().int();
const Text = z.string();
/** `/reset` returns WebAgentTextEnv.reset()'s `(observation, None)` tuple. */
const ResetAnswer = z.tuple([z.string(), z.null()]);
const StepAnswer = z.object({
  state: z.string(),
  reward: z.number(),
  done: z.boolean(),
  info: z.unknown(),
});
const AvailableActions = z.object({ has_search_bar: z.boolean(), clickables: z.array(z.string()) });
const CloseAnswer = z.object({ closed: z.boolean() });

/**
 * The real WebShop (Yao et al., 2022) served by AgentGym's `agentenv-webshop` server, as our
 * {@link Env}. Observations are the server's text mode verbatim (`… [SEP] …`); `actions` are
 * `search[<query>]` while the page has a search bar and `click[label]` for each clickable; the
 * instruction comes from `/instruction_text`. Buying (`click[buy now]`) terminates with WebShop's
 * reward. Tasks are goal indices (`session_id`), see {@link AGENTGYM_SPLITS}.
 *
 * Admissibility is checked here with the server's own rule (WebAgentTextEnv.step lowercases the
 * argument and accepts a click only if it is a clickable other than `search`; otherwise it does
 * nothing and returns the same page), so invalid actions never reach the server. One departure:
 * the server would also run `search[…]` on a page without a search bar; we refuse it, as WebShop's
 * own agents and our built-in webshop do, because the page offers no search.
 *
 * No step limit here: use {@link agentgymEntry} or wrap it in a TimeLimit (WebShop's 15).
 */
export class AgentGymWebShopEnv extends AgentGymEnv {
  constructor(options: AgentGymEnvOptions) {
    super('webshop', options);
  }

  protected createSession(): Promise<number> {
    return this.http.post('/create', undefined, EnvIdx);
  }

  protected async resetSession(session: number, index: number): Promise<ServedEpisode> {
    const [page] = await this.http.post(
      '/reset',
      { env_idx: session, session_id: index },
      ResetAnswer,
    );
    const instruction = await this.http.get('/instruction_text', { env_idx: session }, Text);
    return {
      observation: {
        text: page,
        // The page's `<h4>` reads "Instruction: <goal>"; the label is not part of the goal.
        instruction: instruction.replace(/^\s*Instruction:\s*/i, '').trim(),
        actions: await this.availableActions(session),
      },
    };
  }

  protected async act(session: number, action: string, current: Observation): Promise<Outcome> {
    const command = webshopCommand(action, current.actions ?? []);
    if (typeof command !== 'string') return command;
    const answer = await this.http.post('/step', { env_idx: session, action: command }, StepAnswer);
    return {
      observation: {
        text: answer.state,
        instruction: current.instruction,
        actions: answer.done ? [] : await this.availableActions(session),
      },
      reward: answer.reward,
      terminated: answer.done,
      truncated: false,
      info: {},
    };
  }

  protected async closeSession(session: number): Promise<void> {
    await this.http.post('/close', { env_idx: session }, CloseAnswer);
  }

  private async availableActions(session: number): Promise<string[]> {
    const { has_search_bar, clickables } = await this.http.get(
      '/available_actions',
      { env_idx: session },
      AvailableActions,
    );
    // The server looks clicks up by the lowercased argument, so a clickable with capitals (an
    // option value such as "X-Large") can never be clicked; `search` is the search button,
    // which only `search[…]` uses.
    const clickable = clickables.filter((c) => c !== 'search' && c === c.toLowerCase());
    return [...(has_search_bar ? [SEARCH_TEMPLATE] : []), ...clickable.map((c) => `click[${c}]`)];
  }
}

/** The command to send for `action`, or why it is not admissible on this page. */
function webshopCommand(action: string, actions: readonly string[]): string | Refusal {
  const parsed = parseBracketAction(action);
  if (!parsed) {
    return { invalid: `"${action}" is not an action: write search[query] or click[label].` };
  }
  if (parsed.verb === 'search') {
    if (!actions.includes(SEARCH_TEMPLATE)) {
      return { invalid: 'this page has no search bar: click[back to search] first.' };
    }
    if (parsed.arg.length === 0) return { invalid: 'search[] needs a query.' };
    return `search[${parsed.arg}]`;
  }
  if (parsed.verb === 'click') {
    const command = `click[${parsed.arg.toLowerCase()}]`;
    if (actions.includes(command)) return command;
    const clicks = actions.filter((a) => a.startsWith('click['));
    return {
      invalid: `there is no [${parsed.arg}] on this page; clickable: ${clicks.join(', ') || 'nothing (use search[query])'}.`,
    };
  }
  return { invalid: `unknown action "${parsed.verb}": use search[query] or click[label].` };
}
