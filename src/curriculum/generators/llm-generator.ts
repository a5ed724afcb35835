/**
 * The paper's task generator: an LLM writes harder or different variations of a task. Its tasks
 * have no spec (a real env cannot build them), so they run only in a synthetic env. The prompt
 * holds the env family, the parent's instruction and other instructions of the pool as examples of
 * the style, never a spec: the model varies tasks as a task writer would, knowing nothing of the
 * real env's hidden state.
 */
import { z } from 'zod';
import type { Rng } from '../../core/rng.ts';
import type { Task } from '../../core/types.ts';
import type { ChatMessage, LlmClient } from '../../llm/client.ts';
import { LlmError } from '../../llm/errors.ts';
import { generatedTask } from '../task-identity.ts';
import type { GenerationRequest, GenerationResult, PoolView, TaskGenerator } from './generator.ts';

/** The answer's shape, sent to the backend as JSON Schema. */
const Answer = z.object({ tasks: z.array(z.object({ instruction: z.string() })) });

/** One usable instruction: one line of sensible length. Checked per item, so one bad item costs only itself. */
const Instruction = z
  .string()
  .trim()
  .min(12)
  .max(400)
  .regex(/^[^\n\r]+$/);

/** What the built-in envs' tasks and actions are like, for the prompt. */
const ENV_DESCRIPTIONS: Readonly<Record<string, string>> = {
  webshop:
    'a text web shop. The agent searches (search[query]), opens results, picks options such as size or color and buys (click[label]). A task asks for a product with some attributes and options under a budget.',
  household:
    'a text household after ALFWorld. The agent goes to receptacles, opens them, takes and moves objects, cleans, heats or cools them, and turns on lamps. A task asks to put objects of a type in a receptacle, possibly cleaned, heated or cooled first, or to look at an object under a lamp.',
  web: "a web site in a browser after WebArena (a forum, a store's admin). The agent reads the page's accessibility tree, clicks links and buttons, types into fields and ends with stop [answer]. A task asks for information on the site (answered in stop), to open a page, or to change something (vote, post, edit, update a record); it names the post, user, product, order or month it is about.",
};

/** The description of an env: its own, else its family's (`web` for `web:forum` or `webarena@…`). */
function descriptionOf(
  descriptions: Readonly<Record<string, string>>,
  env: string,
): string | undefined {
  const family = /^webarena\b/.test(env) ? 'web' : env.split(/[:@]/, 1)[0];
  return descriptions[env] ?? (family === undefined ? undefined : descriptions[family]);
}

export interface LlmTaskGeneratorOptions {
  llm: LlmClient;
  /** Other instructions of the pool shown as examples. Default 5. */
  examples?: number;
  /** Default 1: variations should differ from each other. */
  temperature?: number;
  /** Default 1024. */
  maxTokens?: number;
  /** Descriptions of env families for the prompt, beside the built-in ones for webshop and household. */
  envDescriptions?: Readonly<Record<string, string>>;
}

export class LlmTaskGenerator implements TaskGenerator {
  readonly name: string;
  private readonly descriptions: Readonly<Record<string, string>>;

  constructor(private readonly options: LlmTaskGeneratorOptions) {
    this.name = `llm:${options.llm.id}`;
    this.descriptions = { ...ENV_DESCRIPTIONS, ...options.envDescriptions };
  }

  async generate({ parent, count, pool, rng }: GenerationRequest): Promise<GenerationResult> {
    const messages = this.prompt(
      parent,
      count,
      examplesFor(parent, pool, this.options.examples ?? 5, rng),
    );
    let answer: z.infer<typeof Answer>;
    try {
      const response = await this.options.llm.chat({
        messages,
        schema: Answer,
        schemaName: 'task_variations',
        temperature: this.options.temperature ?? 1,
        maxTokens: this.options.maxTokens ?? 1024,
        seed: rng.uint32(),
      });
      answer = response.json;
    } catch (error) {
      if (error instanceof LlmError) {
        return {
          tasks: [],
          warnings: [`${this.name}: no variations of ${parent.id}: ${error.message}`],
        };
      }
      throw error;
    }
    const tasks: Task[] = [];
    for (const item of answer.tasks) {
      const instruction = Instruction.safeParse(item.instruction);
      if (!instruction.success || tasks.length >= count) continue;
      const task = generatedTask(parent, instruction.data);
      if (!pool.isDuplicate(task) && !tasks.some((t) => t.id === task.id)) tasks.push(task);
    }
    const warnings =
      tasks.length < count
        ? [
            `${this.name}: ${tasks.length} of ${count} variations of ${parent.id} usable; the answer had ${answer.tasks.length}, the rest malformed or already in the pool.`,
          ]
        : [];
    return { tasks, warnings };
  }

  private prompt(parent: Task, count: number, examples: readonly string[]): ChatMessage[] {
    const description = descriptionOf(this.descriptions, parent.env);
    const lines = [
      `Environment: ${parent.env}${description ? `, ${description}` : ''}`,
      '',
      'Task to vary:',
      parent.instruction,
      '',
      ...(examples.length > 0
        ? ['Other tasks in this environment:', ...examples.map((e) => `- ${e}`), '']
        : []),
      `Write ${count} new tasks that are harder than the task to vary, or different from it. Each must be done with the same kinds of actions; change its constraints, targets or context. Write each as one self-contained instruction in the style of the tasks above, and repeat none of them.`,
      '',
      'Answer with JSON: {"tasks": [{"instruction": "..."}]}',
    ];
    return [
      {
        role: 'system',
        content:
          'You write training tasks for an AI agent acting in a text environment. You vary a task the agent solves only sometimes, so that it practises at the edge of what it can do.',
      },
      { role: 'user', content: lines.join('\n') },
    ];
  }
}

/** Up to `count` instructions of other pooled tasks of the parent's env, for the prompt. */
function examplesFor(parent: Task, pool: PoolView, count: number, rng: Rng): string[] {
  const others = pool.tasks({ env: parent.env }).filter((e) => e.task.id !== parent.id);
  return rng.sample(others, count).map((e) => e.task.instruction);
}
