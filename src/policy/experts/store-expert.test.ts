import { describe, expect, it } from 'vitest';
import { Rng } from '../../core/rng.ts';
import type { Observation, Task } from '../../core/types.ts';
import { BrowserEnv } from '../../envs/web/browser/browser-env.ts';
import { BuiltInSites } from '../../envs/web/sites/builtin-sites.ts';
import { storeApp } from '../../envs/web/sites/store/store-app.ts';
import { STORE_TEMPLATES, storeTasks } from '../../envs/web/sites/store/store-tasks.ts';
import { evaluateTask } from '../../envs/web/webarena/evaluate.ts';
import { runEpisode } from '../../rl/episode.ts';
import type { Policy } from '../policy.ts';
import { StoreExpert } from './store-expert.ts';

const tasks = storeTasks(0).tasks('test', STORE_TEMPLATES.length);
const taskOf = (key: string) =>
  tasks.find(
    (t) =>
      (t.spec as { intent_template_id: number }).intent_template_id ===
      STORE_TEMPLATES.find((x) => x.key === key)?.id,
  ) as Task;
const slots = (task: Task) =>
  (task.spec as { instantiation_dict: Record<string, string> }).instantiation_dict;

/** A page in the browser env's text form: tab line, URL, blank line, tab-indented tree. */
function page(url: string, title: string, lines: string[]): Observation {
  return {
    text: `Tab 0 (current): ${title}\nURL: http://store.test${url}\n\n${lines.join('\n')}`,
    instruction: '',
  };
}

const NAV = [
  `[1] RootWebArea 'Store Admin' focused: True`,
  `\t[2] navigation 'Main'`,
  `\t\t[3] link 'Dashboard' url: http://store.test/admin`,
  `\t\t[4] link 'Products' url: http://store.test/admin/products`,
  `\t\t[5] link 'Orders' url: http://store.test/admin/orders`,
  `\t[6] main ''`,
];

function productPage(name: string, sku: string, price: string, field: string): Observation {
  return page('/admin/products/12', name, [
    ...NAV,
    `\t\t[10] heading '${name}'`,
    `\t\t[11] table 'Product summary'`,
    `\t\t\t[12] row ''`,
    `\t\t\t\t[13] rowheader 'SKU' required: False`,
    `\t\t\t\t[14] cell '${sku}'`,
    `\t\t\t[15] row ''`,
    `\t\t\t\t[16] rowheader 'Price' required: False`,
    `\t\t\t\t[17] cell '${price}'`,
    `\t\t[20] form 'Save product'`,
    `\t\t\t[21] StaticText 'Price'`,
    `\t\t\t[22] textbox 'Price' value: ${field} required: False`,
    `\t\t\t[23] button 'Save product'`,
  ]);
}

async function act(expert: Policy, task: Task, observation: Observation, seed = 0) {
  return (await expert.act(observation, { task, history: [], rng: new Rng(seed) })).action;
}

describe('StoreExpert on hand-made pages', () => {
  const expert = new StoreExpert();

  it('finds a product by SKU through the grid search and reads its price', async () => {
    const task = taskOf('product-price');
    const { sku } = slots(task);
    const dashboard = page('/admin', 'Dashboard', [...NAV, `\t\t[10] heading 'Dashboard'`]);
    expect(await act(expert, task, dashboard)).toBe('click [4]');
    const grid = (query: string, rows: string[]) =>
      page(`/admin/products${query}`, 'Products', [
        ...NAV,
        `\t\t[10] heading 'Products'`,
        `\t\t[11] search ''`,
        `\t\t\t[12] searchbox 'Search products' value: ${query ? sku : ''}`,
        `\t\t[13] table 'Products'`,
        ...rows,
      ]);
    expect(await act(expert, task, grid('', []))).toBe(`type [12] [${sku}] [1]`);
    const rows = [
      `\t\t\t[20] row ''`,
      `\t\t\t\t[21] cell 'XYZ-0000'`,
      `\t\t\t\t[22] cell 'Decoy'`,
      `\t\t\t\t\t[23] link 'Decoy' url: http://store.test/admin/products/2`,
      `\t\t\t[30] row ''`,
      `\t\t\t\t[31] cell '${sku}'`,
      `\t\t\t\t[32] cell 'Target'`,
      `\t\t\t\t\t[33] link 'Target' url: http://store.test/admin/products/12`,
    ];
    expect(await act(expert, task, grid(`?q=${sku}`, rows))).toBe('click [33]');
    expect(await act(expert, task, productPage('Target', sku as string, '$265.95', '265.95'))).toBe(
      'stop [$265.95]',
    );
  });

  it('types a new price, saves it, and stops once the summary shows it', async () => {
    const task = taskOf('set-price');
    const { product, price } = slots(task) as { product: string; price: string };
    const plain = price.slice(1);
    expect(await act(expert, task, productPage(product, 'KIT-1', '$1.00', '1.00'))).toBe(
      `type [22] [${plain}] [0]`,
    );
    expect(await act(expert, task, productPage(product, 'KIT-1', '$1.00', plain))).toBe(
      'click [23]',
    );
    expect(await act(expert, task, productPage(product, 'KIT-1', price, plain))).toBe('stop []');
  });

  it('signs in with the demo account the login page shows', async () => {
    const task = taskOf('order-status');
    const login = (user: string) =>
      page('/admin/login', 'Sign in', [
        `[1] RootWebArea 'Sign in — Store Admin' focused: True`,
        `\t[2] main ''`,
        `\t\t[3] heading 'Sign in'`,
        `\t\t[4] form 'Sign in'`,
        `\t\t\t[5] textbox 'Username'${user ? ` value: ${user}` : ''} required: False`,
        `\t\t\t[6] textbox 'Password' required: False`,
        `\t\t\t[7] button 'Sign in'`,
        `\t\t[8] StaticText 'Demo account: admin / storeadmin1'`,
      ]);
    expect(await act(expert, task, login(''))).toBe('type [5] [admin] [0]');
    expect(await act(expert, task, login('admin'))).toBe('type [6] [storeadmin1] [1]');
  });

  it('at epsilon 1 always slips: a typo, a wrong link or an early stop', async () => {
    const sloppy = new StoreExpert({ epsilon: 1 });
    const task = taskOf('set-price');
    const { product, price } = slots(task) as { product: string; price: string };
    const observation = productPage(product, 'KIT-1', '$1.00', '1.00');
    const planned = await act(expert, task, observation);
    const slips = await Promise.all(
      Array.from({ length: 20 }, (_, seed) => act(sloppy, task, observation, seed)),
    );
    for (const slip of slips) expect(slip).not.toBe(planned);
    expect(
      slips.some((s) => /^type \[22\] \[.*\] \[0\]$/.test(s) && !s.includes(`[${price.slice(1)}]`)),
    ).toBe(true);
    expect(slips.some((s) => /^click \[\d+\]$/.test(s))).toBe(true);
    expect(() => new StoreExpert({ epsilon: 2 })).toThrow(/epsilon/);
  });
});

const doNothing: Policy = { id: 'do-nothing', act: async () => ({ action: 'stop []' }) };

/** Plays `policy` on every task over `parallel` envs; the final reward of each. */
async function play(policy: Policy, list: readonly Task[], parallel: number): Promise<number[]> {
  const rewards: number[] = new Array(list.length);
  let next = 0;
  const envs = Array.from(
    { length: parallel },
    () =>
      new BrowserEnv({
        name: 'web:store',
        sites: new BuiltInSites([storeApp]),
        tasks: storeTasks(0),
        evaluate: evaluateTask,
      }),
  );
  try {
    await Promise.all(
      envs.map(async (env) => {
        for (let i = next++; i < list.length; i = next++) {
          const trajectory = await runEpisode(env, policy, {
            task: list[i] as Task,
            seed: i,
            provenance: 'real-online',
          });
          rewards[i] = trajectory.steps.at(-1)?.reward ?? 0;
        }
      }),
    );
  } finally {
    await Promise.all(envs.map((env) => env.close()));
  }
  return rewards;
}

// One task of every template, end to end in a real Chromium (fails with the fix if none).
describe('StoreExpert in the browser env', () => {
  it('meets the checks of a task of every template, where doing nothing does not', async () => {
    const [expert, idle] = [
      await play(new StoreExpert(), tasks, 3),
      await play(doNothing, tasks, 3),
    ];
    const failed = tasks.filter((_, i) => expert[i] !== 1).map((t) => `${t.id}: ${t.instruction}`);
    expect(failed).toEqual([]);
    const passedIdle = tasks.filter((_, i) => idle[i] !== 0).map((t) => t.id);
    expect(passedIdle).toEqual([]);
  }, 600_000);
});
