import Database from 'better-sqlite3';
import { ConfigError, TaskError } from '../../../../core/errors.ts';
import { Rng } from '../../../../core/rng.ts';
import type { Task } from '../../../../core/types.ts';
import type { TaskSource, TaskSplit } from '../../../env.ts';
import type { WebArenaConfig } from '../../webarena/config.ts';
import { templateDatabase } from '../web-app.ts';
import { forumApp } from './forum-app.ts';
import {
  BASE,
  FORUM_TEMPLATES,
  type ForumTemplate,
  type TemplateInstance,
} from './task-templates.ts';

/** The env name of the forum's tasks. */
export const FORUM_ENV = 'web:forum';

/** Task indices [0, FORUM_TEST_TASK_COUNT) are the test split, the rest train (as webshop). */
export const FORUM_TEST_TASK_COUNT = 200;

/** At most this many instantiations of one template, so no template crowds out the others. */
const MAX_PER_TEMPLATE = 40;

/** One forum task: its index in the seed's fixed task list, template and WebArena config. */
export interface ForumTaskEntry {
  index: number;
  template: ForumTemplate;
  config: WebArenaConfig;
}

const lists = new Map<number, ForumTaskEntry[]>();

/**
 * Every forum task of content seed `seed`, in their fixed order: each template's instantiations
 * are shuffled (by the seed and template id) and capped at {@link MAX_PER_TEMPLATE}, then dealt
 * round-robin over the templates (a template that runs out drops out), so the first 200 tasks
 * cover every template and the order never depends on how many tasks are asked for.
 */
export function forumTaskList(seed = 0): readonly ForumTaskEntry[] {
  let list = lists.get(seed);
  if (!list) {
    list = buildForumTaskList(seed);
    lists.set(seed, list);
  }
  return list;
}

/** {@link forumTaskList} computed afresh (no cache): generates the site and instantiates. */
export function buildForumTaskList(seed: number): ForumTaskEntry[] {
  const db = new Database(templateDatabase(forumApp, seed));
  let pools: Array<{ template: ForumTemplate; instances: TemplateInstance[] }>;
  try {
    const me = (db.prepare('SELECT name FROM users WHERE is_default = 1').get() as { name: string })
      .name;
    const rng = new Rng(seed).fork('forum-tasks');
    pools = FORUM_TEMPLATES.map((template) => {
      const templateRng = rng.fork('template', template.id);
      const instances = template.instances({ db, me }, templateRng.fork('texts'));
      return {
        template,
        instances: templateRng.shuffle(instances).slice(0, MAX_PER_TEMPLATE),
      };
    });
  } finally {
    db.close();
  }
  const entries: ForumTaskEntry[] = [];
  for (let round = 0; pools.some((pool) => round < pool.instances.length); round++) {
    for (const { template, instances } of pools) {
      const instance = instances[round];
      if (!instance) continue;
      const index = entries.length;
      const phrasing = new Rng(seed).fork('phrasing', index).pick(template.phrasings);
      entries.push({ index, template, config: toConfig(index, template, phrasing, instance) });
    }
  }
  return entries;
}

function toConfig(
  index: number,
  template: ForumTemplate,
  phrasing: string,
  instance: TemplateInstance,
): WebArenaConfig {
  const intent = phrasing.replaceAll(/\{(\w+)\}/g, (_, slot: string) => {
    const value = instance.values[slot];
    if (value === undefined) {
      throw new ConfigError(
        `forum template ${template.key}: phrasing uses {${slot}} it has no value for.`,
      );
    }
    return value;
  });
  return {
    task_id: index,
    sites: ['reddit'],
    start_url: BASE,
    intent,
    intent_template: phrasing,
    intent_template_id: template.id,
    instantiation_dict: { ...instance.values },
    require_login: template.requireLogin,
    storage_state: null,
    require_reset: template.kind === 'change',
    geolocation: null,
    eval: instance.eval,
  };
}

/** The dreamgym task of a forum task entry. */
export function forumTask(entry: ForumTaskEntry): Task {
  return {
    id: `${FORUM_ENV}/${entry.index}`,
    env: FORUM_ENV,
    instruction: entry.config.intent,
    spec: entry.config as unknown as Record<string, unknown>,
    origin: 'seed',
  };
}

/**
 * The forum's tasks as a {@link TaskSource}: test is indices 0..199, train the rest (by default
 * all of them). Same seed, same tasks; asking for more never changes earlier ones.
 */
export function forumTasks(seed = 0): TaskSource {
  return {
    tasks(split: TaskSplit, count?: number): Task[] {
      const all = forumTaskList(seed);
      const [first, available] =
        split === 'test'
          ? [0, FORUM_TEST_TASK_COUNT]
          : [FORUM_TEST_TASK_COUNT, all.length - FORUM_TEST_TASK_COUNT];
      const wanted = count ?? available;
      if (!Number.isInteger(wanted) || wanted < 0) {
        throw new ConfigError(`forum tasks: count must be a whole number ≥ 0, got ${count}.`);
      }
      if (wanted > available) {
        throw new ConfigError(
          `the web:forum ${split} split has ${available} tasks; asked for ${wanted}.${split === 'test' ? ' Use the train split for more.' : ''}`,
        );
      }
      return all.slice(first, first + wanted).map(forumTask);
    },
  };
}

/** The forum template a task was made from, or a {@link TaskError} naming why there is none. */
export function forumTemplateOf(task: Task): { template: ForumTemplate; config: WebArenaConfig } {
  const config = task.spec as WebArenaConfig | undefined;
  const template = FORUM_TEMPLATES.find((t) => t.id === config?.intent_template_id);
  if (!config || !template) {
    throw new TaskError(
      `task ${task.id} is not a built-in forum task (no forum intent_template_id in its spec); the forum expert plays only tasks from forumTasks().`,
    );
  }
  return { template, config };
}
