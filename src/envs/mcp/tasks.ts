import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError, DataFormatError, TaskError } from '../../core/errors.ts';
import { Rng } from '../../core/rng.ts';
import type { Task } from '../../core/types.ts';
import type { TaskSource, TaskSplit } from '../env.ts';
import { isToolName, type ToolCall } from './action-syntax.ts';
import { regexProblem, type SuccessCheck, type TextMatch } from './check.ts';
import { schemaProblem } from './schema-problem.ts';

/** One line of a task file: what the agent is asked, how the episode is set up and judged. */
export interface McpTaskDefinition {
  /** Unique within the file; the task's id is `mcp:NAME/<id>`. */
  id: string;
  instruction: string;
  /** The split the task belongs to; a task without one is in both. */
  split?: TaskSplit;
  /** Tool calls run after the reset, before the agent's first step (hidden tools allowed). */
  setup: ToolCall[];
  check: SuccessCheck;
}

/** What an MCP task's `spec` holds: everything the env needs to run it, task file or not. */
export interface McpTaskSpec {
  setup: ToolCall[];
  check: SuccessCheck;
}

const FORMAT =
  'each line is one JSON task: {"id": …, "instruction": …, "check": {"answer": {"exact": …}}} with optional "split" ("train" | "test") and "setup" ([{"tool": …, "arguments": {…}}]); see docs/mcp-env.md';

const MATCH_FORMS = '{"exact": "…"}, {"contains": "…"} or {"regex": "…", "flags": "i"}';

/** A tool call as task files and configs write it: `{"tool": "name", "arguments": {…}}`. */
export const toolCallSchema = z.strictObject({
  tool: z
    .string({ error: 'expected the tool name, a string' })
    .refine(isToolName, 'not a tool name (letters, digits, _ . - /)'),
  arguments: z
    .record(z.string(), z.unknown(), { error: 'expected a JSON object of arguments' })
    .default({}),
});

const textMatchSchema: z.ZodType<TextMatch> = z
  .union(
    [
      z.strictObject({ exact: z.string() }),
      z.strictObject({ contains: z.string() }),
      z.strictObject({ regex: z.string(), flags: z.string().optional() }),
    ],
    { error: `expected one match: ${MATCH_FORMS}` },
  )
  .superRefine((match, context) => {
    const problem = regexProblem(match);
    if (problem)
      context.addIssue({ code: 'custom', message: `the regex does not compile: ${problem}` });
  });

const checkSchema = z
  .strictObject(
    {
      answer: textMatchSchema.optional(),
      call: toolCallSchema.extend({ expect: textMatchSchema }).optional(),
    },
    { error: 'expected an object with "answer" and/or "call"' },
  )
  .refine((check) => check.answer !== undefined || check.call !== undefined, {
    message: `give "answer": ${MATCH_FORMS}, or "call": {"tool": …, "arguments": {…}, "expect": {…}}, or both`,
  });

const setupSchema = z.array(toolCallSchema, { error: 'expected a list of tool calls' }).default([]);

const specSchema = z.strictObject({ setup: setupSchema, check: checkSchema });

/** A task line, its fields in the order problems are reported. */
const lineSchema = z.strictObject({
  id: z.string({ error: 'expected a string id' }).min(1, 'the id is empty'),
  instruction: z
    .string({ error: 'expected the instruction, a string' })
    .min(1, 'the instruction is empty'),
  split: z.enum(['train', 'test'], { error: 'expected "train" or "test"' }).optional(),
  setup: setupSchema,
  check: checkSchema,
});

/**
 * Parses a task file (JSONL: one task a line; blank lines skipped). Any bad line refuses the whole
 * file with a {@link DataFormatError} naming the line, the problem and the format; so do a
 * repeated id and a file without tasks.
 */
export function parseMcpTasks(text: string, file: string): McpTaskDefinition[] {
  const tasks: McpTaskDefinition[] = [];
  const lineOf = new Map<string, number>();
  const lines = text.split(/\r?\n/);
  for (const [index, raw] of lines.entries()) {
    const line = index + 1;
    if (raw.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      throw new DataFormatError(file, line, `not JSON (${(error as Error).message}); ${FORMAT}.`);
    }
    const parsed = lineSchema.safeParse(value);
    if (!parsed.success) {
      throw new DataFormatError(
        file,
        line,
        `${schemaProblem(parsed.error, 'the line')}; ${FORMAT}.`,
      );
    }
    const { id, instruction, split, setup, check } = parsed.data;
    const earlier = lineOf.get(id);
    if (earlier !== undefined) {
      throw new DataFormatError(
        file,
        line,
        `task id "${id}" is already used on line ${earlier}; give every task its own id.`,
      );
    }
    lineOf.set(id, line);
    tasks.push({ id, instruction, ...(split !== undefined && { split }), setup, check });
  }
  if (tasks.length === 0) {
    throw new DataFormatError(file, 1, `the file holds no task; ${FORMAT}.`);
  }
  return tasks;
}

/** Reads and parses a task file; a missing file says so. */
export function loadMcpTasks(path: string): McpTaskDefinition[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(
      `cannot read the MCP task file ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); check the "tasks" path in the config (relative paths start at the config's folder).`,
    );
  }
  return parseMcpTasks(text, path);
}

/** The task of a definition, for env family `family` (`mcp:NAME`). */
export function mcpTask(family: string, definition: McpTaskDefinition): Task {
  const spec: McpTaskSpec = { setup: definition.setup, check: definition.check };
  return {
    id: `${family}/${definition.id}`,
    env: family,
    instruction: definition.instruction,
    spec: spec as unknown as Record<string, unknown>,
    origin: 'seed',
  };
}

/** The setup and check of a task, or a {@link TaskError} saying why this env cannot run it. */
export function mcpTaskSpec(task: Task, family: string): McpTaskSpec {
  if (task.env !== family) {
    throw new TaskError(`task ${task.id} is for env "${task.env}", not "${family}".`);
  }
  if (task.spec === undefined) {
    throw new TaskError(
      `task ${task.id} has no spec (setup and check); a generated task without one can only run in a synthetic env.`,
    );
  }
  const parsed = specSchema.safeParse(task.spec);
  if (!parsed.success) {
    throw new TaskError(
      `task ${task.id} has a malformed spec: ${schemaProblem(parsed.error, 'the spec')}; an MCP task's spec is {"setup": [...], "check": {...}} as in the task file.`,
    );
  }
  return parsed.data;
}

/** The tasks of a task file by split, and seeded draws from a split. */
export class McpTaskSource implements TaskSource {
  constructor(
    readonly family: string,
    readonly definitions: readonly McpTaskDefinition[],
    /** Named in errors: where the tasks came from. */
    readonly file: string,
  ) {}

  tasks(split: TaskSplit, count?: number): Task[] {
    const inSplit = this.definitions
      .filter((definition) => definition.split === undefined || definition.split === split)
      .map((definition) => mcpTask(this.family, definition));
    if (count === undefined) return inSplit;
    if (count > inSplit.length) {
      throw new ConfigError(
        `${this.file} has ${inSplit.length} ${split} task(s); asked for ${count}. Add tasks or ask for fewer.`,
      );
    }
    return inSplit.slice(0, count);
  }

  /** The task `reset({ seed })` runs: uniform over the split, fixed by the seed. */
  draw(split: TaskSplit, seed: number): Task {
    const tasks = this.tasks(split);
    if (tasks.length === 0) {
      throw new ConfigError(
        `${this.file} has no ${split} task; mark lines "split": "${split}" or leave "split" out (a task without one is in both splits).`,
      );
    }
    return tasks[new Rng(seed).fork('mcp-task').int(tasks.length)] as Task;
  }
}
