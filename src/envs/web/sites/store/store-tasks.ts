/**
 * The `web:store` tasks: WebArena-format configs instantiated from the templates over one seed's
 * generated store, and the seeded train/test split.
 *
 * Task i uses template `i mod T` (so every template appears in every stretch of T tasks) and the
 * `⌊i / T⌋`-th row of that template's candidate list, shuffled once per seed; new values and the
 * phrasing come from `Rng(seed).fork('task', i)`. As for webshop, indices
 * [0, {@link STORE_TEST_TASK_COUNT}) are the test split and the rest train, so the splits never
 * share an index and asking for more tasks never changes the ones already drawn. A template with
 * fewer candidates than its share of indices reuses them (with fresh values for changes).
 */

import Database from 'better-sqlite3';
import { ConfigError, TaskError } from '../../../../core/errors.ts';
import { Rng } from '../../../../core/rng.ts';
import type { Task } from '../../../../core/types.ts';
import type { TaskSource, TaskSplit } from '../../../env.ts';
import { type WebArenaConfig, WebArenaConfigSchema } from '../../webarena/config.ts';
import { templateDatabase } from '../web-app.ts';
import { storeApp } from './store-app.ts';
import { CHANGE_TEMPLATES } from './tasks/changes.ts';
import { INFO_TEMPLATES } from './tasks/info.ts';
import { NAVIGATION_TEMPLATES } from './tasks/navigation.ts';
import { STORE_URL, type StoreTemplate } from './tasks/template.ts';

/** The env name of the store tasks. */
export const STORE_ENV = 'web:store';

/** Every store template, in `intent_template_id` order. */
export const STORE_TEMPLATES: readonly StoreTemplate[] = [
  ...INFO_TEMPLATES,
  ...NAVIGATION_TEMPLATES,
  ...CHANGE_TEMPLATES,
];

/** Task indices [0, STORE_TEST_TASK_COUNT) are the test split. */
export const STORE_TEST_TASK_COUNT = 200;

/** Train tasks handed out when the caller does not say how many. */
export const DEFAULT_STORE_TRAIN_TASK_COUNT = 800;

/** Where every task starts: the dashboard. */
const START_PATH = '/admin';

/** The templates' candidate lists of one seed, shuffled once. */
class StoreTaskGenerator {
  private readonly db: Database.Database;
  private readonly pools: unknown[][];

  constructor(readonly seed: number) {
    this.db = new Database(templateDatabase(storeApp, seed), { readonly: true });
    const rng = new Rng(seed);
    this.pools = STORE_TEMPLATES.map((t) => rng.fork('pool', t.id).shuffle(t.candidates(this.db)));
  }

  task(index: number): Task {
    if (!Number.isInteger(index) || index < 0) {
      throw new ConfigError(`store task index must be a whole number ≥ 0, got ${index}.`);
    }
    const t = index % STORE_TEMPLATES.length;
    const tmpl = STORE_TEMPLATES[t] as StoreTemplate;
    const pool = this.pools[t] as Record<string, unknown>[];
    const row = pool[Math.floor(index / STORE_TEMPLATES.length) % pool.length] as Record<
      string,
      unknown
    >;
    const rng = new Rng(this.seed).fork('task', index);
    const instance = tmpl.instantiate(row, rng.fork('values'), this.db);
    const phrasing = rng.fork('phrasing').pick(tmpl.intents);
    const intent = phrasing.replace(/\{\{(\w+)\}\}/g, (_, slot: string) => {
      const value = instance.slots[slot];
      if (value === undefined) {
        throw new ConfigError(`store template ${tmpl.key} has no value for {{${slot}}}.`);
      }
      return value;
    });
    const config: WebArenaConfig = {
      task_id: index,
      sites: [storeApp.site],
      require_login: true,
      storage_state: null,
      start_url: STORE_URL + START_PATH,
      geolocation: null,
      intent_template: phrasing,
      instantiation_dict: { ...instance.slots },
      intent,
      require_reset: tmpl.kind === 'change',
      eval: instance.eval,
      intent_template_id: tmpl.id,
    };
    return {
      id: `${STORE_ENV}/${index}`,
      env: STORE_ENV,
      instruction: intent,
      spec: config as unknown as Record<string, unknown>,
      origin: 'seed',
    };
  }
}

const generators = new Map<number, StoreTaskGenerator>();

function generator(seed: number): StoreTaskGenerator {
  let found = generators.get(seed);
  if (!found) {
    found = new StoreTaskGenerator(seed);
    generators.set(seed, found);
  }
  return found;
}

/** Store task `index` for the store generated from `seed`. */
export function storeTask(index: number, seed = 0): Task {
  return generator(seed).task(index);
}

/**
 * The store's task source: test is indices 0.. (at most {@link STORE_TEST_TASK_COUNT}), train
 * indices STORE_TEST_TASK_COUNT.. (default {@link DEFAULT_STORE_TRAIN_TASK_COUNT}).
 */
export function storeTasks(seed = 0): TaskSource {
  return {
    tasks(split: TaskSplit, count?: number): Task[] {
      const wanted =
        count ?? (split === 'test' ? STORE_TEST_TASK_COUNT : DEFAULT_STORE_TRAIN_TASK_COUNT);
      if (split === 'test' && wanted > STORE_TEST_TASK_COUNT) {
        throw new ConfigError(
          `the web:store test split has ${STORE_TEST_TASK_COUNT} tasks; asked for ${wanted}. Use the train split for more.`,
        );
      }
      const first = split === 'test' ? 0 : STORE_TEST_TASK_COUNT;
      return Array.from({ length: wanted }, (_, k) => storeTask(first + k, seed));
    },
  };
}

/** The template a store task was made from, or a {@link TaskError} naming why there is none. */
export function storeTemplateOf(task: Task): { template: StoreTemplate; config: WebArenaConfig } {
  const parsed = WebArenaConfigSchema.safeParse(task.spec);
  const config = parsed.success ? parsed.data : undefined;
  const tmpl = STORE_TEMPLATES.find((t) => t.id === config?.intent_template_id);
  if (!config || !tmpl) {
    throw new TaskError(
      `task ${task.id} is not a web:store task with a known intent_template_id; take tasks from storeTasks().`,
    );
  }
  return { template: tmpl, config };
}
