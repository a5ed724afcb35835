import { z } from 'zod';
import type { Observation } from '../../core/types.ts';
import { admissibleCommand } from './admissible.ts';
import {
  AgentGymEnv,
  type AgentGymEnvOptions,
  type Outcome,
  type ServedEpisode,
} from './agentgym-env.ts';
import { type AgentGymDialect, dialectOf } from './dialects.ts';
import { AgentGymHttpError, AgentGymProtocolError } from './errors.ts';

// The answers the servers give, in every form the dialects use; `{ error }` answers are turned
// into errors by JsonHttpClient before these see them.
const Id = z.number().int();
/** An int (WebShop's template), `{ id }` (ALFWorld's and TextCraft's) or `{ env_idx }`. */
const CreateAnswer = z.union([
  Id,
  z.looseObject({ id: Id }).transform((a) => a.id),
  z.looseObject({ env_idx: Id }).transform((a) => a.env_idx),
]);
/** A string (the tool servers), `[observation, null]` (SQLGym) or an object. */
const ResetAnswer = z.union([
  z.string(),
  z.tuple([z.string(), z.unknown()]),
  z.looseObject({ observation: z.string().optional() }),
]);
/** `observation` in most servers, `state` in SQLGym's. */
const StepAnswer = z.looseObject({
  observation: z.string().optional(),
  state: z.string().optional(),
  reward: z.number().optional(),
  score: z.number().optional(),
  done: z.boolean(),
});
const ObservationAnswer = z.union([z.string(), z.looseObject({ observation: z.string() })]);
const ActionList = z.array(z.string());
const ListingAnswer = z.union([ActionList, z.record(z.string(), z.unknown())]);

/** Options of {@link AgentGymGenericEnv}. */
export interface AgentGymGenericEnvOptions extends AgentGymEnvOptions {
  /**
   * How the server speaks. Default: the server's entry of {@link AGENTGYM_DIALECTS}, else
   * {@link GENERIC_DIALECT}.
   */
  dialect?: AgentGymDialect;
}

/**
 * Any AgentGym env server other than WebShop and ALFWorld (TextCraft, BabyAI, SciWorld, SQLGym,
 * LMRL-Gym's maze and Wordle, the tool servers, SearchQA, or a server of the user's own written
 * after AgentGym's template), as our {@link Env}; its {@link AgentGymDialect} says what the
 * server does its own way. Tasks are the server's task indices, see {@link AGENTGYM_SPLITS}.
 *
 * - `actions` come from the server's own listing where it has one; where the listing is exact,
 *   other actions are refused before they are sent (matched ignoring case and spacing, sent in
 *   the server's spelling). Where the server lists nothing, `actions` is empty and the server
 *   judges every action; the answers that mean "that did nothing" (the dialect's `invalid`)
 *   come back as our invalid action, the state as it was.
 * - `done` is termination: these servers do not say whether a step limit of theirs ended an
 *   episode. No step limit of ours here: use {@link agentgymEntry} or wrap it in a TimeLimit.
 */
export class AgentGymGenericEnv extends AgentGymEnv {
  readonly dialect: AgentGymDialect;
  /** The dialect's prefix, unless the URL already ends with it. */
  private readonly prefix: string;
  /** The reward level reached in this episode, for `level` rewards. */
  private level = 0;
  /** A listing that is the same in every state, once read. */
  private fixedActions: string[] | undefined;
  /** The server has no listing endpoint (an optional one answered 404). */
  private unlisted = false;

  /** `server` names the env (`textcraft`; a generic server's own name) and its family. */
  constructor(server: string, options: AgentGymGenericEnvOptions) {
    super(server, options);
    this.dialect = options.dialect ?? dialectOf(server);
    const path = new URL(this.url).pathname.replace(/\/+$/, '');
    this.prefix = path.endsWith(this.dialect.prefix) ? '' : this.dialect.prefix;
  }

  protected createSession(): Promise<number> {
    return this.http.post(this.path('/create'), this.dialect.createBody, CreateAnswer);
  }

  protected async resetSession(session: number, index: number): Promise<ServedEpisode> {
    const path = this.path('/reset');
    const body = { [this.dialect.session]: session, [this.dialect.taskField]: index };
    const answer = await this.http.post(path, body, ResetAnswer);
    const text =
      typeof answer === 'string'
        ? answer
        : Array.isArray(answer)
          ? answer[0]
          : (answer.observation ?? (await this.observe(session)));
    const instruction = this.dialect.instruction(text, answer);
    if (instruction === undefined) {
      throw new AgentGymProtocolError(
        this.http.site('POST', path),
        `a reset that states no task (the ${this.server} server's version may differ): ${text.slice(0, 200)}`,
      );
    }
    const { reward } = this.dialect;
    this.level = reward.kind === 'level' ? levelIn(answer, reward.field) : 0;
    return { observation: { text, instruction, actions: await this.listActions(session, text) } };
  }

  protected async act(session: number, action: string, current: Observation): Promise<Outcome> {
    const exact = this.dialect.actions?.exact ?? false;
    const command = admissibleCommand(action, exact ? (current.actions ?? []) : []);
    if (typeof command !== 'string') return command;
    const path = this.path('/step');
    const body = { [this.dialect.session]: session, action: command };
    const answer = await this.http.post(path, body, StepAnswer);
    const text = answer.observation ?? answer.state;
    const value = answer[this.dialect.reward.field];
    if (text === undefined || value === undefined) {
      throw new AgentGymProtocolError(
        this.http.site('POST', path),
        `a step answer without ${text === undefined ? 'an observation' : `a ${this.dialect.reward.field}`}: ${JSON.stringify(answer).slice(0, 200)}`,
      );
    }
    if (this.dialect.invalid?.test(text.trim())) {
      return { invalid: `the server refused "${command}": ${text.trim()}` };
    }
    return {
      observation: {
        text,
        instruction: current.instruction,
        actions: answer.done ? [] : await this.listActions(session, text),
      },
      reward: this.rewardOf(value),
      terminated: answer.done,
      truncated: false,
      info: {},
    };
  }

  protected async closeSession(session: number): Promise<void> {
    await this.http.post(this.path('/close'), { [this.dialect.session]: session }, z.unknown());
  }

  private path(route: string): string {
    return `${this.prefix}${route}`;
  }

  /** The step reward of an answer's `value`: itself, or its change of the episode's level. */
  private rewardOf(value: number): number {
    const { kind, scale } = this.dialect.reward;
    if (kind === 'step') return value / scale;
    const level = Math.max(0, value);
    const reward = (level - this.level) / scale;
    this.level = level;
    return reward;
  }

  /** The current observation, for servers whose reset answer carries none. */
  private async observe(session: number): Promise<string> {
    const answer = await this.http.get(
      this.path('/observation'),
      { [this.dialect.session]: session },
      ObservationAnswer,
    );
    return typeof answer === 'string' ? answer : answer.observation;
  }

  /** The server's listing in the state whose observation is `text`. */
  private async listActions(session: number, text: string): Promise<string[]> {
    const listing = this.dialect.actions;
    if (!listing || this.unlisted) return [];
    if (listing.from === 'text') return listing.read(text);
    if (this.fixedActions) return [...this.fixedActions];
    const path = this.path(listing.path);
    let answer: z.infer<typeof ListingAnswer>;
    try {
      const query = listing.perSession ? { [this.dialect.session]: session } : {};
      answer = await this.http.get(path, query, ListingAnswer);
    } catch (error) {
      if (listing.optional && error instanceof AgentGymHttpError && error.status === 404) {
        this.unlisted = true;
        return [];
      }
      throw error;
    }
    const list = ActionList.safeParse(Array.isArray(answer) ? answer : answer[listing.field]);
    if (!list.success) {
      throw new AgentGymProtocolError(
        this.http.site('GET', path),
        `no list of actions (a list of strings, or one under "${listing.field}"): ${JSON.stringify(answer).slice(0, 200)}`,
      );
    }
    if (!listing.perSession) this.fixedActions = list.data;
    return [...list.data];
  }
}

/** A reset answer's starting level (SciWorld's score after its first look), else 0. */
function levelIn(answer: unknown, field: string): number {
  const value = (answer as Record<string, unknown> | null)?.[field];
  return typeof value === 'number' ? Math.max(0, value) : 0;
}
