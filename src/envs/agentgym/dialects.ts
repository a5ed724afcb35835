import type { AgentGymEnvName } from './tasks.ts';

/**
 * How each AgentGym server speaks the protocol they share: the table {@link AgentGymGenericEnv}
 * reads. Every `agentenv-…` server answers `POST /create`, `POST /reset`, `POST /step` and
 * `GET /observation`, most `POST /close`; what differs is written here, read from their sources
 * (each server's `server.py`, `model.py` and env wrapper, and its client in `agentenv/envs/`).
 * WebShop and ALFWorld have clients of their own.
 */

/** The servers this table describes. */
export type DialectEnvName = Exclude<AgentGymEnvName, 'webshop' | 'alfworld'>;

/** Reads a task's instruction from its reset: the observation text and the whole answer. */
export type InstructionReader = (text: string, answer: unknown) => string | undefined;

/** Where a server lists actions. */
export type ActionListing = (
  | {
      /** A GET endpoint answering a list, or an object holding the list under `field`. */
      from: 'endpoint';
      path: string;
      /** Sends the session id as query parameter; else the list is the same in every state. */
      perSession: boolean;
      /** The list's key where the answer is an object. */
      field: string;
      /** A server without the endpoint (404) lists nothing instead of failing. */
      optional?: boolean;
    }
  | {
      /** Actions written into each observation's text. */
      from: 'text';
      read: (text: string) => string[];
    }
) & {
  /**
   * The list is every admissible action: others are refused before they are sent. Otherwise it
   * is a hint (SciWorld's templates such as `open OBJ`) and the server judges each action.
   */
  exact: boolean;
};

/** How a step's answer carries its reward. */
export interface RewardSpec {
  /** The answer field read. */
  field: 'reward' | 'score';
  /**
   * `step`: the value is that step's reward. `level`: the value is the progress made so far (the
   * tool servers' progress rate, SciWorld's score), so a step's reward is its change and an
   * episode's rewards add up to its final level. A negative level (SciWorld's −100 for a task
   * made impossible) counts as 0.
   */
  kind: 'step' | 'level';
  /** The value of full success, e.g. SciWorld's score 100; rewards are divided by it. */
  scale: number;
}

/** What one server does its own way. */
export interface AgentGymDialect {
  /** What the env is, and how its actions are written where the server lists none. */
  description: string;
  /**
   * Path of the env's routes on its server: LMRL-Gym's server serves `/maze` and `/wordle`. A URL
   * that already ends with it (AgentGym's own clients are given `http://HOST:PORT/maze`) is used
   * as is.
   */
  prefix: string;
  /**
   * The session id's name in bodies and in the `/observation` query: `id` (the ALFWorld and
   * TextCraft template, also AgentGym's custom-env tutorial) or `env_idx` (WebShop's template).
   */
  session: 'id' | 'env_idx';
  /** The body `/create` requires: the tool servers build a task there (`{ id: 0 }`), reset replaces it. */
  createBody: Record<string, unknown>;
  /** The reset body field that names the task index. */
  taskField: 'data_idx' | 'game' | 'seed' | 'item_id' | 'id';
  reward: RewardSpec;
  /** Where admissible actions come from; none: the observation lists no actions. */
  actions?: ActionListing;
  /** The instruction of a reset; `undefined` means the server answered something unexpected. */
  instruction: InstructionReader;
  /** Step observations that mean "that action did nothing": the env's invalid action. */
  invalid?: RegExp;
  /** The step limit AgentGym's own scripts use for this env. */
  maxSteps: number;
}

/** The text after `label` (its first group), trimmed. */
const after =
  (label: RegExp): InstructionReader =>
  (text) =>
    label.exec(text)?.[1]?.trim() || undefined;

/** The whole reset observation: where the server states the task and nothing else. */
const wholeText: InstructionReader = (text) => text.trim() || undefined;

/** A string field of the reset answer. */
const answerField =
  (name: string): InstructionReader =>
  (_text, answer) => {
    const value = (answer as Record<string, unknown> | null)?.[name];
    return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
  };

/**
 * BabyAI's actions, which its server appends to every observation as
 * `Available actions: ["turn left", "turn right", …]`.
 */
export function actionsInText(text: string): string[] {
  const list = /Available actions:\s*\[(.*)\]\s*$/s.exec(text)?.[1] ?? '';
  return [...list.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => (m[1] as string).trim());
}

const STEP_REWARD: RewardSpec = { field: 'reward', kind: 'step', scale: 1 };
const PROGRESS_REWARD: RewardSpec = { field: 'reward', kind: 'level', scale: 1 };

/** AgentBoard's tool tasks behind `agentenv-tool`: one server each, all alike. */
function toolServer(what: string, maxSteps: number): AgentGymDialect {
  return {
    description: `${what} (AgentBoard's tool tasks, agentenv-tool); actions read "Action: <tool> with Action Input: <JSON arguments>"`,
    prefix: '',
    session: 'env_idx',
    createBody: { id: 0 },
    taskField: 'id',
    reward: PROGRESS_REWARD,
    instruction: after(/accomplish the goal:\s*(.+)/),
    invalid: /^Format error/,
    maxSteps,
  };
}

/**
 * The per-server table. Step limits: AgentGym-RL's evaluation scripts where it has one (babyai
 * 20; sciworld, textcraft, searchqa 30), else AgentGym's multi-task AgentEvol script.
 */
export const AGENTGYM_DIALECTS: Record<DialectEnvName, AgentGymDialect> = {
  textcraft: {
    description:
      'TextCraft, Minecraft crafting from the recipes given (agentenv-textcraft); actions "get 2 oak planks", "craft 1 stick using 2 oak planks", "inventory"',
    prefix: '',
    session: 'id',
    createBody: {},
    taskField: 'data_idx',
    reward: STEP_REWARD,
    instruction: after(/Goal:\s*(.+)/),
    invalid: /^(Could not|Wrong item format)/,
    maxSteps: 30,
  },
  babyai: {
    description: 'BabyAI grid worlds in words (agentenv-babyai); the server lists the actions',
    prefix: '',
    session: 'id',
    createBody: {},
    taskField: 'data_idx',
    reward: STEP_REWARD,
    actions: { from: 'text', read: actionsInText, exact: true },
    instruction: after(/Your goal:\s*(.+)/),
    maxSteps: 20,
  },
  sciworld: {
    description:
      'ScienceWorld experiments (agentenv-sciworld); actions such as "look around", "open door to kitchen", "focus on OBJ"; rewards are its score / 100',
    prefix: '',
    session: 'id',
    createBody: {},
    taskField: 'data_idx',
    reward: { field: 'score', kind: 'level', scale: 100 },
    actions: {
      from: 'endpoint',
      path: '/action_hint',
      perSession: true,
      field: 'possible_actions',
      exact: false,
    },
    instruction: answerField('task_description'),
    invalid: /^No known action matches that input/,
    maxSteps: 30,
  },
  sqlgym: {
    description:
      'BIRD text-to-SQL (agentenv-sqlgym): the action is one SQL query, judged by its result',
    prefix: '',
    session: 'env_idx',
    createBody: {},
    taskField: 'item_id',
    reward: STEP_REWARD,
    instruction: wholeText,
    maxSteps: 1,
  },
  maze: {
    description: "LMRL-Gym's maze (agentenv-lmrlgym at /maze); actions move up/down/left/right",
    prefix: '/maze',
    session: 'id',
    createBody: {},
    taskField: 'game',
    reward: STEP_REWARD,
    actions: {
      from: 'endpoint',
      path: '/available_actions',
      perSession: false,
      field: 'available_actions',
      exact: true,
    },
    instruction: wholeText,
    maxSteps: 15,
  },
  wordle: {
    description:
      'Wordle after LMRL-Gym (agentenv-lmrlgym at /wordle); a guess is five letters separated by spaces',
    prefix: '/wordle',
    session: 'id',
    createBody: {},
    taskField: 'seed',
    reward: STEP_REWARD,
    // The server's reset says only "Let's start Wordle!"; the rules are the task.
    instruction: () =>
      'Find the hidden five-letter word in at most six guesses. Write a guess as its letters separated by spaces, e.g. "c r a n e"; the reply marks each letter g (right place), y (elsewhere in the word) or b (not in the word).',
    maxSteps: 8,
  },
  weather: toolServer('weather questions', 10),
  movie: toolServer('movie questions', 12),
  todo: toolServer('to-do list changes', 15),
  academia: toolServer('academic search questions', 12),
  sheet: toolServer('spreadsheet edits', 15),
  searchqa: {
    description:
      'question answering with Wikipedia search (agentenv-searchqa); actions "<search> query </search>" or "<answer> answer </answer>"',
    prefix: '',
    session: 'env_idx',
    createBody: { id: 0 },
    taskField: 'id',
    reward: STEP_REWARD,
    instruction: after(/Question:\s*([\s\S]+)$/),
    invalid: /^Your previous action is invalid/,
    maxSteps: 30,
  },
};

/**
 * AgentGym's common protocol, as its custom-env tutorial lays it out: `POST /create` → `{ id }`,
 * `POST /reset { id, data_idx }`, `POST /step { id, action }` → `{ observation, reward, done }`,
 * `GET /observation?id=`, `POST /close { id }`; and `GET /available_actions?id=` where the server
 * has it (a list, or `{ available_actions }`), taken as the admissible actions. The instruction
 * is the first observation. For `agentgym:generic:NAME@URL`.
 */
export const GENERIC_DIALECT: AgentGymDialect = {
  description: "a server speaking AgentGym's common protocol",
  prefix: '',
  session: 'id',
  createBody: {},
  taskField: 'data_idx',
  reward: STEP_REWARD,
  actions: {
    from: 'endpoint',
    path: '/available_actions',
    perSession: true,
    field: 'available_actions',
    optional: true,
    exact: true,
  },
  instruction: wholeText,
  maxSteps: 30,
};

/** The dialect of a server named `server`: its entry of {@link AGENTGYM_DIALECTS}, else the generic one. */
export function dialectOf(server: string): AgentGymDialect {
  return Object.hasOwn(AGENTGYM_DIALECTS, server)
    ? AGENTGYM_DIALECTS[server as DialectEnvName]
    : GENERIC_DIALECT;
}
