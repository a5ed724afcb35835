// Your own environment for dreamgym, the way a user writes one: a small tool-calling stock desk
// (look items up, answer how many are in stock, move them to another bin — a wrong move is final),
// its tasks, a scripted expert, and the EnvEntry that every `dreamgym` command takes:
//   dreamgym collect --env ./stock-desk.ts …   (the default export below)
import {
  type Env,
  EnvClosedError,
  type EnvEntry,
  type EnvExpert,
  EnvNotResetError,
  EpisodeEndedError,
  type Observation,
  type ResetOptions,
  type ResetResult,
  Rng,
  type StepResult,
  type Task,
  TimeLimit,
} from 'dreamgym';

interface Item {
  sku: string;
  name: string;
  qty: number;
  bin: string;
}

const COLOURS = ['red', 'blue', 'green', 'black', 'white', 'amber'];
const THINGS = ['stapler', 'lamp', 'kettle', 'ladder', 'drill', 'folder', 'mug', 'bucket'];

/** The desk's stock: 24 items, the same for every episode (the env's hidden state). */
const STOCK: Item[] = (() => {
  const rng = new Rng('stock-desk');
  return COLOURS.flatMap((colour, c) =>
    rng.sample(THINGS, 4).map((thing, t) => ({
      sku: `SK-${1000 + c * 10 + t}`,
      name: `${colour} ${thing}`,
      qty: rng.int(40),
      bin: `B-${1 + rng.int(9)}`,
    })),
  );
})();

type Goal = { kind: 'count'; sku: string } | { kind: 'move'; sku: string; bin: string };

function deskTask(split: 'train' | 'test', i: number): Task {
  const rng = new Rng(`stock-desk-task/${split}/${i}`);
  const item = rng.pick(STOCK);
  const goal: Goal = rng.chance(0.5)
    ? { kind: 'count', sku: item.sku }
    : {
        kind: 'move',
        sku: item.sku,
        bin: `B-${1 + ((Number(item.bin.slice(2)) + rng.int(8)) % 9)}`,
      };
  const instruction =
    goal.kind === 'count'
      ? `How many ${item.name}s are in stock?`
      : `Move every ${item.name} to bin ${goal.bin}.`;
  return {
    id: `stock-desk-${split}-${i}`,
    env: 'stock-desk',
    instruction,
    spec: goal,
    origin: 'seed',
  };
}

/**
 * Actions are tool calls: `search[words]` lists matching items, `stock[SKU]` shows one,
 * `move[SKU, BIN]` moves it (final: the wrong item or bin fails the task), `answer[text]` ends the
 * episode. Observations are the tools' JSON results.
 */
class StockDeskEnv implements Env {
  readonly name = 'stock-desk';
  private task: Task | undefined;
  private seen = new Set<string>();
  private ended = false;
  private closed = false;
  private result = '';

  async reset({ task, seed = 0 }: ResetOptions = {}): Promise<ResetResult> {
    if (this.closed) throw new EnvClosedError(this.name);
    this.task = task ?? deskTask('train', new Rng(seed).int(1000));
    this.seen = new Set();
    this.ended = false;
    this.result = JSON.stringify({ desk: 'ready', tools: ['search', 'stock', 'move', 'answer'] });
    return { observation: this.observe(), info: { task: this.task } };
  }

  async step(action: string): Promise<StepResult> {
    if (this.closed) throw new EnvClosedError(this.name);
    if (!this.task) throw new EnvNotResetError(this.name);
    if (this.ended) throw new EpisodeEndedError(this.name, 'terminated');
    const call = /^(search|stock|move|answer)\[(.*)\]$/s.exec(action.trim());
    const [tool, arg = ''] = call ? [call[1], call[2]?.trim()] : [];
    const goal = this.task.spec as Goal;
    if (tool === 'search' && arg) {
      const words = arg.toLowerCase().split(/\s+/);
      const found = STOCK.filter((i) => words.every((w) => i.name.includes(w)));
      for (const i of found) this.seen.add(i.sku);
      return this.answer(
        JSON.stringify({ results: found.map(({ sku, name }) => ({ sku, name })) }),
      );
    }
    if (tool === 'stock') {
      const item = STOCK.find((i) => i.sku === arg);
      if (item) this.seen.add(item.sku);
      return this.answer(JSON.stringify(item ?? { error: `no item ${arg}` }));
    }
    if (tool === 'move') {
      const [sku, bin] = arg.split(/\s*,\s*/);
      if (STOCK.some((i) => i.sku === sku) && /^B-[1-9]$/.test(bin ?? '')) {
        const right = goal.kind === 'move' && goal.sku === sku && goal.bin === bin;
        return this.answer(JSON.stringify({ moved: sku, to: bin }), right ? 1 : 0, true);
      }
    }
    if (tool === 'answer' && arg) {
      const qty = STOCK.find((i) => i.sku === goal.sku)?.qty;
      const right = goal.kind === 'count' && new RegExp(`\\b${qty}\\b`).test(arg);
      return this.answer(JSON.stringify({ answered: arg }), right ? 1 : 0, true);
    }
    return {
      observation: this.observe(),
      reward: 0,
      terminated: false,
      truncated: false,
      info: { invalidAction: `"${action.slice(0, 80)}" is not a tool call the desk knows` },
    };
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private answer(result: string, reward = 0, terminated = false): StepResult {
    this.result = result;
    this.ended = terminated;
    return { observation: this.observe(), reward, terminated, truncated: false, info: {} };
  }

  private observe(): Observation {
    const seen = [...this.seen].sort();
    return {
      text: this.result,
      instruction: this.task?.instruction ?? '',
      actions: [
        'search[<words>]',
        ...seen.map((sku) => `stock[${sku}]`),
        ...seen.map((sku) => `move[${sku}, <bin>]`),
        'answer[<text>]',
      ],
    };
  }
}

/** Plays as a clerk who knows the goal: search, read the stock line, answer or move. */
class StockDeskExpert implements EnvExpert {
  readonly id: string;
  constructor(private readonly epsilon: number) {
    this.id = `stock-desk-expert(eps=${epsilon})`;
  }

  async act(observation: Observation, { task, rng }: { task: Task; rng: Rng }) {
    const goal = task.spec as Goal;
    if (rng.chance(this.epsilon)) {
      // A slip: any admissible call, its blanks filled at random (a wrong move or answer is final).
      const fill: Record<string, () => string> = {
        '<words>': () => rng.pick(THINGS),
        '<bin>': () => `B-${1 + rng.int(9)}`,
        '<text>': () => `${rng.int(40)} in stock`,
      };
      const action = rng.pick(observation.actions ?? ['search[<words>]']);
      return { action: action.replace(/<\w+>/, (blank) => fill[blank]?.() ?? '') };
    }
    const page = JSON.parse(observation.text) as { sku?: string; qty?: number };
    if (page.sku === goal.sku) {
      return {
        action:
          goal.kind === 'count' ? `answer[${page.qty} in stock]` : `move[${goal.sku}, ${goal.bin}]`,
      };
    }
    if (observation.actions?.includes(`stock[${goal.sku}]`))
      return { action: `stock[${goal.sku}]` };
    const name = /(?:many|every) (\w+ \w+?)s? (?:are|to)/.exec(task.instruction)?.[1] ?? '';
    return { action: `search[${name}]` };
  }
}

const stockDesk: EnvEntry = {
  name: 'stock-desk',
  description: 'a tool-calling stock desk: search[words], stock[SKU], move[SKU, BIN], answer[text]',
  maxSteps: 8,
  make: (options) => new TimeLimit(new StockDeskEnv(), options.maxSteps ?? 8),
  tasks: () => ({
    tasks: (split, count = 500) => Array.from({ length: count }, (_, i) => deskTask(split, i)),
  }),
  expert: ({ epsilon }) => new StockDeskExpert(epsilon),
};

export default stockDesk;
