import { type FakeServer, fastapiLikeApp, listen, unprocessable } from './serve.ts';

/**
 * A fake AgentGym env server of our own for tests of the table-driven client: a beacon hunt on a
 * 5×5 grid (task `i` fixes the start and the beacon), spoken in either of the two styles
 * AgentGym's servers are written in:
 * - `id` (the ALFWorld and TextCraft template, AgentGym's custom-env tutorial): `/create` answers
 *   `{ id }`, `/reset` and `/step` objects with `observation`, failures HTTP 200 `{ error }`;
 *   the reward is 1 on the step that reaches the beacon.
 * - `env_idx` (the tool servers): `/create` takes `{ id }` and answers an int, `/reset` answers
 *   the observation string, an unknown session is an HTTP 500, an action the server cannot parse
 *   answers "Format error, …"; the reward is the progress so far (a level), as AgentBoard's.
 * The actions are `move north|south|east|west` and `look`; moving off the grid bumps the edge.
 */
export const FAKE_GENERIC_TASKS = 2000;

const SIZE = 5;
const ACTIONS = ['look', 'move east', 'move north', 'move south', 'move west'];
const MOVES: Record<string, [number, number]> = {
  'move north': [-1, 0],
  'move south': [1, 0],
  'move east': [0, 1],
  'move west': [0, -1],
};

/** Task `index` of the fake: where the walker starts and where the beacon is. */
export interface FakeBeaconTask {
  start: [number, number];
  beacon: [number, number];
}

/** Task `index` of the fake. */
export function fakeBeaconTask(index: number): FakeBeaconTask {
  const start: [number, number] = [index % SIZE, Math.floor(index / SIZE) % SIZE];
  const beacon: [number, number] = [(index * 3 + 2) % SIZE, (Math.floor(index / 7) + 1) % SIZE];
  if (beacon[0] === start[0] && beacon[1] === start[1]) beacon[1] = (beacon[1] + 2) % SIZE;
  return { start, beacon };
}

/** The moves that take the walker of task `index` from its start to the beacon. */
export function fakeBeaconPath(index: number): string[] {
  const { start, beacon } = fakeBeaconTask(index);
  const rows = beacon[0] - start[0];
  const cols = beacon[1] - start[1];
  return [
    ...Array<string>(Math.abs(rows)).fill(rows > 0 ? 'move south' : 'move north'),
    ...Array<string>(Math.abs(cols)).fill(cols > 0 ? 'move east' : 'move west'),
  ];
}

/** Options of the fake: its protocol style and where it lists actions. */
export interface FakeGenericOptions {
  /** Path the routes are under, as LMRL-Gym's server puts maze under `/maze`. Default none. */
  prefix?: string;
  /** Protocol style, named by its session id field. Default `id`. */
  session?: 'id' | 'env_idx';
  /** The reset body field naming the task. Default `data_idx`. */
  taskField?: string;
  /**
   * Where actions are listed: `GET /available_actions?<session>=` answering
   * `{ available_actions }` (`session`, the default), `GET /available_actions` answering a list
   * (`fixed`, as LMRL-Gym's maze), appended to each observation as BabyAI does (`text`), or not.
   */
  listing?: 'session' | 'fixed' | 'text' | 'none';
  /** Serve `/close`. Default true in the `id` style; the tool servers have none. */
  withClose?: boolean;
}

/** A running fake generic server: its URL, the calls it received, faults, and close(). */
export interface FakeGenericServer extends FakeServer {
  /** Session ids closed through `/close`. */
  readonly closed: number[];
}

interface Walk {
  task: FakeBeaconTask;
  at: [number, number];
  /** Progress so far, 0 to 1: the most of the start's distance to the beacon ever covered. */
  level: number;
  done: boolean;
}

/** Starts the fake on a free local port. */
export async function startFakeGenericServer(
  options: FakeGenericOptions = {},
): Promise<FakeGenericServer> {
  const { app, calls, faults } = fastapiLikeApp();
  const prefix = options.prefix ?? '';
  const style = options.session ?? 'id';
  const taskField = options.taskField ?? 'data_idx';
  const listing = options.listing ?? 'session';
  const sessions = new Map<number, Walk | undefined>();
  const closed: number[] = [];
  let nextId = 0;

  const render = (text: string) =>
    listing === 'text'
      ? `${text}\nAvailable actions: [${ACTIONS.map((a) => `"${a}"`).join(', ')}]`
      : text;
  /** The session's walk, or what the server says is wrong with the id. */
  const walkOf = (id: number): Walk | string => {
    if (!sessions.has(id)) return `The id ${id} is not valid.`;
    return sessions.get(id) ?? `The environment ${id} has not been reset.`;
  };
  /** A failure as the style reports it: `{ error }` with HTTP 200, or an exception (500). */
  const fail = (message: string) => {
    if (style === 'env_idx') throw new Error(message);
    return { error: message };
  };

  app.get(`${prefix}/`, (c) => c.json('This is a fake beacon-hunt environment.'));
  app.post(`${prefix}/create`, async (c) => {
    if (style === 'env_idx') {
      const body = await c.req.json().catch(() => undefined);
      if (!Number.isInteger(body?.id)) return unprocessable(c, 'body', 'id');
    }
    const id = nextId++;
    sessions.set(id, undefined);
    return c.json(style === 'id' ? { id } : id);
  });
  app.post(`${prefix}/reset`, async (c) => {
    const body = await c.req.json();
    if (!Number.isInteger(body[style])) return unprocessable(c, 'body', style);
    if (!Number.isInteger(body[taskField])) return unprocessable(c, 'body', taskField);
    if (!sessions.has(body[style])) return c.json(fail(`The id ${body[style]} is not valid.`));
    const index: number = body[taskField];
    if (index < 0 || index >= FAKE_GENERIC_TASKS) {
      return c.json(fail(`The game ${index} is not valid.`));
    }
    const task = fakeBeaconTask(index);
    const walk: Walk = { task, at: [...task.start], level: 0, done: false };
    sessions.set(body[style], walk);
    const goal = `reach the beacon at row ${task.beacon[0]}, column ${task.beacon[1]}`;
    if (style === 'env_idx') {
      return c.json(
        `Now new trial starts.\nYou should perform actions to accomplish the goal: ${goal}\nGive me one action.`,
      );
    }
    const text = render(`Your goal: ${goal}.\n${where(walk)}`);
    return c.json({ id: body.id, observation: text, reward: 0, done: false });
  });
  app.post(`${prefix}/step`, async (c) => {
    const body = await c.req.json();
    if (!Number.isInteger(body[style])) return unprocessable(c, 'body', style);
    if (typeof body.action !== 'string') return unprocessable(c, 'body', 'action');
    const walk = walkOf(body[style]);
    if (typeof walk === 'string') return c.json(fail(walk));
    if (walk.done) return c.json(fail(`The task with environment ${body[style]} has finished.`));
    const feedback = act(walk, body.action);
    if (style === 'env_idx') {
      const observation =
        feedback === undefined
          ? `Format error, please answer with one of: ${ACTIONS.join(', ')}.`
          : `Observation: ${feedback}\nGive me one action.`;
      return c.json({ observation, reward: walk.level, done: walk.done });
    }
    return c.json({
      observation: render(feedback ?? `Unknown command "${body.action}". Nothing happens.`),
      reward: walk.done ? 1 : 0,
      done: walk.done,
    });
  });
  app.get(`${prefix}/observation`, (c) => {
    const walk = walkOf(Number(c.req.query(style)));
    if (typeof walk === 'string') return c.json(fail(walk));
    return c.json(render(where(walk)));
  });
  if (listing === 'fixed') app.get(`${prefix}/available_actions`, (c) => c.json(ACTIONS));
  if (listing === 'session') {
    app.get(`${prefix}/available_actions`, (c) => {
      const walk = walkOf(Number(c.req.query(style)));
      if (typeof walk === 'string') return c.json(fail(walk));
      return c.json({ available_actions: ACTIONS });
    });
  }
  if (options.withClose ?? style === 'id') {
    app.post(`${prefix}/close`, async (c) => {
      const body = await c.req.json();
      if (!Number.isInteger(body[style])) return unprocessable(c, 'body', style);
      const known = sessions.delete(body[style]);
      if (known) closed.push(body[style]);
      return c.json(known);
    });
  }

  const server = await listen(app, calls, faults);
  return { ...server, closed };
}

function where(walk: Walk): string {
  return `You are at row ${walk.at[0]}, column ${walk.at[1]}.`;
}

/** Applies a command; its feedback, or undefined for a command the game does not know. */
function act(walk: Walk, command: string): string | undefined {
  if (command === 'look') {
    const [row, col] = walk.at;
    const away = Math.abs(walk.task.beacon[0] - row) + Math.abs(walk.task.beacon[1] - col);
    return `${where(walk)} The beacon is ${away} steps away.`;
  }
  const move = MOVES[command];
  if (!move) return undefined;
  const row = walk.at[0] + move[0];
  const col = walk.at[1] + move[1];
  if (row < 0 || row >= SIZE || col < 0 || col >= SIZE) return 'You bump into the edge.';
  walk.at = [row, col];
  const { start, beacon } = walk.task;
  const total = Math.abs(beacon[0] - start[0]) + Math.abs(beacon[1] - start[1]);
  const left = Math.abs(beacon[0] - row) + Math.abs(beacon[1] - col);
  walk.level = Math.max(walk.level, (total - left) / total);
  walk.done = left === 0;
  return walk.done ? 'You reach the beacon.' : where(walk);
}
