import { z } from 'zod';
import type { Observation } from '../../core/types.ts';
import { admissibleCommand } from './admissible.ts';
import {
  AgentGymEnv,
  type AgentGymEnvOptions,
  type Outcome,
  type ServedEpisode,
} from './agentgym-env.ts';
import { AgentGymProtocolError } from './errors.ts';

// Answers of AgentGym's agentenv-alfworld server (`agentenv_alfworld/server.py`,
// `env_wrapper.py`). It reports failures as HTTP 200 with `{ error }` (see JsonHttpClient).
const CreateAnswer = z.object({ id: z.number().int() });
const ResetAnswer = z.object({
  observation: z.string(),
  available_actions: z.array(z.string()),
  task_type: z.string(),
});
const StepAnswer = z.object({
  observation: z.string(),
  /** `float(info["won"])`: 1 once the task is done, else 0. */
  reward: z.number(),
  available_actions: z.array(z.string()),
  done: z.boolean(),
});

/** TextWorld's answer to a command that has no effect: ALFWorld's invalid action. */
export const NOTHING_HAPPENS = 'Nothing happens.';

/**
 * ALFWorld (Shridhar et al., 2021) served by AgentGym's `agentenv-alfworld` server, as our
 * {@link Env}, in its text world (`world_type: "Text"`). `actions` are the admissible commands;
 * the instruction is the reset observation's "Your task is to: …" line. Tasks are game indices,
 * see {@link AGENTGYM_SPLITS}.
 *
 * A command that is not admissible is refused here (matched ignoring case and spacing, and sent in
 * the server's spelling); where the server lists no admissible commands, it judges, and its
 * "Nothing happens." becomes our invalid action.
 *
 * The server's reward is 1 once won, and it ends an episode either when won (terminated) or at
 * its own step limit (ALFWorld's `max_nb_steps_per_episode`), which is a cut-off from outside:
 * that comes back truncated, `info.truncatedBy = 'server-step-limit'`. No step limit of ours
 * here: use {@link agentgymEntry} or wrap it in a TimeLimit (AgentGym's 50).
 */
export class AgentGymAlfWorldEnv extends AgentGymEnv {
  constructor(options: AgentGymEnvOptions) {
    super('alfworld', options);
  }

  protected async createSession(): Promise<number> {
    return (await this.http.post('/create', undefined, CreateAnswer)).id;
  }

  protected async resetSession(session: number, index: number): Promise<ServedEpisode> {
    const answer = await this.http.post(
      '/reset',
      { id: session, game: index, world_type: 'Text' },
      ResetAnswer,
    );
    const instruction = /Your task is to:\s*(.+)/.exec(answer.observation)?.[1]?.trim();
    if (!instruction) {
      throw new AgentGymProtocolError(
        this.http.site('POST', '/reset'),
        `an observation without a "Your task is to: …" line: ${answer.observation.slice(0, 200)}`,
      );
    }
    return {
      observation: { text: answer.observation, instruction, actions: answer.available_actions },
      info: { taskType: answer.task_type },
    };
  }

  protected async act(session: number, action: string, current: Observation): Promise<Outcome> {
    const command = admissibleCommand(action, current.actions ?? []);
    if (typeof command !== 'string') return command;
    const answer = await this.http.post('/step', { id: session, action: command }, StepAnswer);
    if (answer.observation.trim() === NOTHING_HAPPENS) {
      return {
        invalid: `the server answered "${NOTHING_HAPPENS}": "${command}" has no effect here.`,
      };
    }
    const won = answer.done && answer.reward > 0;
    return {
      observation: {
        text: answer.observation,
        instruction: current.instruction,
        actions: answer.done ? [] : answer.available_actions,
      },
      reward: answer.reward,
      terminated: won,
      truncated: answer.done && !won,
      info: answer.done && !won ? { truncatedBy: 'server-step-limit' } : {},
    };
  }

  protected async closeSession(session: number): Promise<void> {
    await this.http.post('/close', { id: session }, z.unknown());
  }
}
