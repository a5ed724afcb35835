import { type FakeServer, fastapiLikeApp, listen, unprocessable } from './serve.ts';

/**
 * A fake of AgentGym's `agentenv-alfworld` server for tests: the same endpoints and field names
 * (`id`, `game`, `world_type`, `available_actions`, `task_type`), its habit of answering failures
 * as HTTP 200 `{ error }` with the same messages, its observation processing (the welcome banner
 * cut from the first observation, "You arrive at loc N. " cut from later ones), "Nothing
 * happens." for commands that are not admissible, and a step limit after which it reports done
 * without a win. The world is a tiny scripted room: game `i` asks to put one object into one
 * receptacle.
 */
export const FAKE_ALFWORLD_GAMES = 2620;

const RECEPTACLES = ['cabinet 1', 'countertop 1', 'drawer 1', 'shelf 1', 'sinkbasin 1', 'fridge 1'];
const OBJECTS = ['mug', 'apple', 'book', 'keychain', 'cellphone'];

export interface FakeAlfWorldGame {
  object: string;
  start: string;
  target: string;
  taskType: string;
}

/** Game `index` of the fake: `object` lies on `start` and belongs in `target`. */
export function fakeAlfWorldGame(index: number): FakeAlfWorldGame {
  const start = index % RECEPTACLES.length;
  const target = (start + 1 + ((index >> 3) % (RECEPTACLES.length - 1))) % RECEPTACLES.length;
  const name = OBJECTS[index % OBJECTS.length] as string;
  const title = (word: string) => (word[0] ?? '').toUpperCase() + word.slice(1);
  const targetName = RECEPTACLES[target] as string;
  return {
    object: `${name} 1`,
    start: RECEPTACLES[start] as string,
    target: targetName,
    taskType: `pick_and_place_simple-${title(name)}-None-${title(targetName.split(' ')[0] ?? '')}-${index}/trial_fake_${index}`,
  };
}

interface Game extends FakeAlfWorldGame {
  at: string | undefined;
  objectAt: string | undefined;
  steps: number;
}

interface Info {
  done: boolean;
  deleted: boolean;
}

/**
 * A running fake ALFWorld server: its URL, the calls it received, faults to inject, and close().
 */
export interface FakeAlfWorldServer extends FakeServer {
  /** Session ids closed through `/close`. */
  readonly closed: number[];
}

/** Options of the fake ALFWorld server: whether it serves `/close`, and its step limit. */
export interface FakeAlfWorldOptions {
  /** Serve `/close`; the server in WooooDyy/AgentGym has none (404), later ones do. Default true. */
  withClose?: boolean;
  /** List admissible commands; false mimics a server configured without them. Default true. */
  admissibleCommands?: boolean;
  /** Steps after which the server ends an episode (ALFWorld's max_nb_steps_per_episode). */
  maxEpisodeSteps?: number;
}

/**
 * Starts a fake AgentGym ALFWorld server on a free local port, with scripted games and injectable
 * faults.
 */
export async function startFakeAlfWorldServer(
  options: FakeAlfWorldOptions = {},
): Promise<FakeAlfWorldServer> {
  const { app, calls, faults } = fastapiLikeApp();
  const maxSteps = options.maxEpisodeSteps ?? 50;
  const listActions = options.admissibleCommands ?? true;
  const infos = new Map<number, Info>();
  const games = new Map<number, Game>();
  const closed: number[] = [];
  let nextId = 0;

  /** env_wrapper's `_check_id`: the error an unusable id gets, if any. */
  const checkId = (id: number, isReset = false): string | undefined => {
    const info = infos.get(id);
    if (!info) return `The id ${id} is not valid.`;
    if (info.deleted) return `The task with environment ${id} has been deleted.`;
    if (!isReset && info.done) return `The task with environment ${id} has finished.`;
    return undefined;
  };

  app.get('/', (c) => c.json('This is environment AlfWorld.'));
  app.post('/create', (c) => {
    const id = nextId++;
    infos.set(id, { done: false, deleted: false });
    return c.json({ id });
  });
  app.post('/reset', async (c) => {
    const body = await c.req.json();
    for (const field of ['id', 'game'] as const) {
      if (!Number.isInteger(body[field])) return unprocessable(c, 'body', field);
    }
    if (typeof body.world_type !== 'string') return unprocessable(c, 'body', 'world_type');
    if (!['Text', 'Embody', 'Hybrid'].includes(body.world_type)) {
      return c.json({ error: 'world_type must be one of "Text", "Embody" and "Hybrid"' });
    }
    const problem = checkId(body.id, true);
    if (problem) return c.json({ error: problem });
    if (body.game < 0 || body.game >= FAKE_ALFWORLD_GAMES) {
      return c.json({ error: 'list index out of range' });
    }
    const spec = fakeAlfWorldGame(body.game);
    const game: Game = { ...spec, at: undefined, objectAt: spec.start, steps: 0 };
    games.set(body.id, game);
    infos.set(body.id, { done: false, deleted: false });
    const raw = `-= Welcome to TextWorld, ALFRED! =-\n\n${look(game)}\n\nYour task is to: put a ${game.object.split(' ')[0]} in ${game.target.split(' ')[0]}.`;
    return c.json({
      id: body.id,
      // The server keeps what follows the banner: "\n".join(ob.split("\n\n")[1:]).
      observation: raw.split('\n\n').slice(1).join('\n'),
      available_actions: listActions ? admissible(game) : [],
      task_type: game.taskType,
    });
  });
  app.post('/step', async (c) => {
    const body = await c.req.json();
    if (!Number.isInteger(body.id)) return unprocessable(c, 'body', 'id');
    if (typeof body.action !== 'string') return unprocessable(c, 'body', 'action');
    const problem = checkId(body.id);
    if (problem) return c.json({ error: problem });
    const game = games.get(body.id);
    // A session created but never reset has no game: Python's KeyError, stringified.
    if (!game) return c.json({ error: String(body.id) });
    const feedback = act(game, body.action);
    game.steps += 1;
    const won = game.objectAt === game.target;
    const done = won || game.steps >= maxSteps;
    (infos.get(body.id) as Info).done = done;
    return c.json({
      // utils.process_ob: drop the "You arrive at loc N. " prefix.
      observation: feedback.startsWith('You arrive at loc ')
        ? feedback.slice(feedback.indexOf('. ') + 2)
        : feedback,
      reward: won ? 1.0 : 0.0,
      available_actions: listActions ? admissible(game) : [],
      done,
    });
  });
  if (options.withClose ?? true) {
    app.post('/close', async (c) => {
      const body = await c.req.json();
      if (!Number.isInteger(body.id)) return unprocessable(c, 'body', 'id');
      const problem = checkId(body.id, true);
      if (problem) return c.json({ id: body.id, closed: false, error: problem });
      (infos.get(body.id) as Info).deleted = true;
      closed.push(body.id);
      return c.json({ id: body.id, closed: true });
    });
  }

  const server = await listen(app, calls, faults);
  return { ...server, closed };
}

function look(game: Game): string {
  if (game.at === undefined) {
    const all = RECEPTACLES.map((r) => `a ${r}`);
    return `You are in the middle of a room. Looking quickly around you, you see ${all.slice(0, -1).join(', ')}, and ${all.at(-1)}.`;
  }
  return `You are facing the ${game.at}. Next to it, you see nothing.`;
}

function contents(game: Game, receptacle: string): string {
  const seen = game.objectAt === receptacle ? `a ${game.object}` : 'nothing';
  return `On the ${receptacle}, you see ${seen}.`;
}

/** The admissible commands, sorted as TextWorld lists them. */
function admissible(game: Game): string[] {
  const commands = ['inventory', 'look'];
  for (const r of RECEPTACLES) if (r !== game.at) commands.push(`go to ${r}`);
  if (game.at !== undefined) {
    commands.push(`examine ${game.at}`);
    if (game.objectAt === game.at) commands.push(`take ${game.object} from ${game.at}`);
    if (game.objectAt === undefined) commands.push(`put ${game.object} in/on ${game.at}`);
  }
  return commands.sort();
}

/** TextWorld's feedback to a command; "Nothing happens." unless it is admissible. */
function act(game: Game, command: string): string {
  if (!admissible(game).includes(command)) return 'Nothing happens.';
  if (command === 'look') return look(game);
  if (command === 'inventory') {
    return game.objectAt === undefined
      ? `You are carrying: a ${game.object}.`
      : 'You are not carrying anything.';
  }
  if (command.startsWith('go to ')) {
    game.at = command.slice('go to '.length);
    return `You arrive at loc ${RECEPTACLES.indexOf(game.at) + 7}. ${contents(game, game.at)}`;
  }
  if (command.startsWith('examine ')) return contents(game, game.at as string);
  if (command.startsWith('take ')) {
    game.objectAt = undefined;
    return `You pick up the ${game.object} from the ${game.at}.`;
  }
  game.objectAt = game.at;
  return `You put the ${game.object} in/on the ${game.at}.`;
}
