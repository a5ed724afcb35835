import type { Observation, Step, Task } from '../../../core/types.ts';
import type { TaskSource, TaskSplit } from '../../env.ts';
import type { WebArenaConfig } from '../webarena/config.ts';
import type { Evaluation, TaskEvaluator } from '../webarena/evaluator.ts';
import { TOPICS, testProducts } from './test-site.ts';

/** The env name of BrowserEnvs over the test site. */
export const TEST_SITE_ENV = 'web:testsite';

type TestTaskKind = 'price' | 'contact' | 'message' | 'settings';

const NAMES = ['Ada', 'Grace', 'Linus', 'Barbara'];
const BODIES = ['Where is my parcel', 'Thanks for the tea', 'Please call me back', 'Lovely shop'];

/**
 * The test site's tasks in WebArena's config format, with reference answers computed from the
 * site's generated data: a price question per product (string_match), "open the contact page"
 * (url_match), sending a message (program_html on /messages) and changing settings (program_html
 * on /settings). Every third task is in the `test` split, the rest in `train`.
 */
export function testSiteTasks(seed = 0): TaskSource {
  const configs: WebArenaConfig[] = [];
  const base = {
    sites: ['homepage'],
    start_url: '__HOMEPAGE__/',
    require_login: false,
    storage_state: null,
  };
  for (const product of testProducts(seed)) {
    configs.push({
      ...base,
      task_id: `price-${product.id}`,
      intent: `What is the price of the ${product.name}? Answer with the price as the site shows it.`,
      eval: { eval_types: ['string_match'], reference_answers: { exact_match: product.price } },
    });
  }
  configs.push({
    ...base,
    task_id: 'contact',
    intent: 'Open the contact page of the site.',
    eval: { eval_types: ['url_match'], reference_url: '__HOMEPAGE__/contact' },
  });
  for (const [i, name] of NAMES.entries()) {
    const topic = TOPICS[i % TOPICS.length] as string;
    const body = BODIES[i] as string;
    configs.push({
      ...base,
      task_id: `message-${i}`,
      intent: `Send a message through the contact form as ${name}, on the topic ${topic}, saying "${body}".`,
      eval: {
        eval_types: ['program_html'],
        program_html: [
          {
            url: '__HOMEPAGE__/messages',
            locator: "document.querySelector('#messages').outerText",
            required_contents: { must_include: [`${name} (${topic})`, body] },
          },
        ],
      },
    });
  }
  configs.push({
    ...base,
    task_id: 'settings-dark',
    intent: 'Turn the newsletter on, choose the dark theme and save the settings.',
    eval: {
      eval_types: ['program_html'],
      program_html: [
        {
          url: '__HOMEPAGE__/settings',
          locator:
            "[...document.querySelectorAll('input:checked')].map((e) => e.name + '=' + e.value).join(' ')",
          required_contents: { must_include: ['newsletter=on', 'theme=dark'] },
        },
      ],
    },
  });
  const tasks: Task[] = configs.map((config) => ({
    id: `testsite/${config.task_id}`,
    env: TEST_SITE_ENV,
    instruction: config.intent,
    spec: config as unknown as Record<string, unknown>,
    origin: 'seed',
  }));
  return {
    tasks(split: TaskSplit, count?: number) {
      const chosen = tasks.filter((_, i) => (i % 3 === 0) === (split === 'test'));
      return chosen.slice(0, count ?? chosen.length);
    },
  };
}

/** The id of the first element with this role and exact name in a tree text. */
export function findElement(text: string, role: string, name: string): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^\s*\[(\d+)\] (\S+) '((?:[^'\\]|\\.)*)'(.*)$/.exec(line);
    if (match && match[2] === role && match[3] === name) return Number(match[1]);
  }
  return undefined;
}

/** A property of the line of element `id`, e.g. `value` or `checked`. */
export function elementProperty(text: string, id: number, property: string): string | undefined {
  const line = text.split('\n').find((l) => l.trimStart().startsWith(`[${id}] `));
  return line && new RegExp(` ${property}: ([^:]*?)(?: \\w+: |$)`).exec(line)?.[1];
}

/**
 * A scripted expert for the test site's tasks that acts only through WebArena actions, reading
 * the tree text (and the task's config to know what it was asked).
 */
export async function solveTestSite(
  observation: Observation,
  task: Task,
  history: readonly Step[],
): Promise<string> {
  const config = task.spec as unknown as WebArenaConfig;
  const text = observation.text;
  const url = /^URL: (.*)$/m.exec(text)?.[1] ?? '';
  const path = url.replace(/^https?:\/\/[^/]+/, '');
  const kind = String(config.task_id).split('-')[0] as TestTaskKind;
  const click = (role: string, name: string) => {
    const id = findElement(text, role, name);
    return id === undefined ? 'go_back' : `click [${id}]`;
  };
  switch (kind) {
    case 'price': {
      const name = /price of the (.+)\?/.exec(config.intent)?.[1] as string;
      const price = /StaticText 'Price: (\S+)'/.exec(text)?.[1];
      if (findElement(text, 'heading', name) !== undefined && price) return `stop [${price}]`;
      if (findElement(text, 'link', name) !== undefined) return click('link', name);
      return click('link', 'Products');
    }
    case 'contact':
      return path === '/contact' ? 'stop []' : click('link', 'Contact');
    case 'message': {
      if (path === '/messages') return 'stop []';
      if (path !== '/contact') return click('link', 'Contact');
      const [, name, topic, body] = /as (\w+), on the topic (\w+), saying "(.+)"/.exec(
        config.intent,
      ) as unknown as [string, string, string, string];
      const nameId = findElement(text, 'textbox', 'Your name') as number;
      if (elementProperty(text, nameId, 'value') !== name) return `type [${nameId}] [${name}] [0]`;
      const topicId = findElement(text, 'combobox', 'Topic') as number;
      if (elementProperty(text, topicId, 'value') !== topic) return `type [${topicId}] [${topic}]`;
      const bodyId = findElement(text, 'textbox', 'Message') as number;
      if (elementProperty(text, bodyId, 'value') !== body) return `type [${bodyId}] [${body}] [0]`;
      return click('button', 'Send');
    }
    case 'settings': {
      if (path !== '/settings') return click('link', 'Settings');
      const saved = history.at(-1)?.action === click('button', 'Save');
      if (saved) return 'stop []';
      const newsletter = findElement(text, 'checkbox', 'Newsletter') as number;
      if (elementProperty(text, newsletter, 'checked') !== 'true') return `click [${newsletter}]`;
      const dark = findElement(text, 'radio', 'dark') as number;
      if (elementProperty(text, dark, 'checked') !== 'true') return `click [${dark}]`;
      return click('button', 'Save');
    }
  }
}

/**
 * A tiny evaluator for tests that do not need WebArena's: string_match by exact answer and
 * url_match by equal URL (trailing slash ignored); other check types are left undecided.
 */
export const exactAnswerEvaluator: TaskEvaluator = async ({ config, page, answer }) => {
  const checks: Evaluation['checks'] = [];
  for (const type of config.eval.eval_types) {
    if (type === 'string_match') {
      const expected = String(config.eval.reference_answers?.exact_match ?? '');
      checks.push({
        check: 'string_match/exact_match',
        passed: (answer ?? '').trim() === expected,
        detail: `expected ${expected}, found ${answer ?? '(no answer)'}`,
      });
    } else if (type === 'url_match') {
      const trim = (u: string) => u.replace(/\/+$/, '');
      const expected = trim(config.eval.reference_url ?? '');
      checks.push({
        check: 'url_match',
        passed: trim(page.url()) === expected,
        detail: `expected ${expected}, found ${page.url()}`,
      });
    } else {
      checks.push({ check: type, passed: undefined, detail: 'not checked by the test evaluator' });
    }
  }
  const undecided = checks.some((c) => c.passed === undefined);
  const reward = checks.every((c) => c.passed === true) ? 1 : 0;
  return { reward, checks, undecided };
};
