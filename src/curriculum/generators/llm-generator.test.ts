import { describe, expect, it } from 'vitest';
import { Rng } from '../../core/rng.ts';
import type { Task } from '../../core/types.ts';
import { householdTasks } from '../../envs/household/tasks.ts';
import { LlmTimeoutError } from '../../llm/errors.ts';
import { type MockAnswer, MockLlm } from '../../llm/mock-llm.ts';
import { SqliteTaskPool } from '../sqlite-task-pool.ts';
import { LlmTaskGenerator } from './llm-generator.ts';

const seeds = householdTasks('train', 12);
const parent = seeds[0] as Task;

async function setup(answers: MockAnswer[], options: { examples?: number } = {}) {
  const pool = SqliteTaskPool.open();
  await pool.add(seeds);
  const llm = new MockLlm({ answers });
  const generator = new LlmTaskGenerator({ llm, ...options });
  const generate = (count = 3) => generator.generate({ parent, count, pool, rng: new Rng(7) });
  return { pool, llm, generate };
}

const answer = (...instructions: string[]) => ({
  tasks: instructions.map((instruction) => ({ instruction })),
});

describe('LlmTaskGenerator', () => {
  it('turns valid answers into synthetic-only generated tasks of the parent', async () => {
    const { pool, generate } = await setup([
      answer('put two hot potatoes in the fridge.', 'examine the mug under the floorlamp.'),
    ]);
    const { tasks, warnings } = await generate(2);
    expect(warnings).toEqual([]);
    expect(tasks.map((t) => t.instruction)).toEqual([
      'put two hot potatoes in the fridge.',
      'examine the mug under the floorlamp.',
    ]);
    for (const task of tasks) {
      expect(task).toMatchObject({ env: 'household', origin: 'generated', parentId: parent.id });
      expect(task.spec).toBeUndefined();
    }
    await pool.add(tasks, 1);
    expect(pool.tasks({ origin: 'generated' }).map((e) => e.realizable)).toEqual([false, false]);
  });

  it('asks with the env family, the parent, examples of other tasks and the answer schema', async () => {
    const { llm, generate } = await setup([answer('put two hot potatoes in the fridge.')], {
      examples: 4,
    });
    await generate(3);
    const request = llm.requests[0];
    const prompt = request?.messages.map((m) => m.content).join('\n') ?? '';
    expect(prompt).toContain('Environment: household, a text household after ALFWorld');
    expect(prompt).toContain(`Task to vary:\n${parent.instruction}`);
    expect(prompt).toContain('Write 3 new tasks');
    const examples = prompt.split('\n').filter((line) => line.startsWith('- '));
    expect(examples).toHaveLength(4);
    const others = seeds.slice(1).map((t) => `- ${t.instruction}`);
    for (const example of examples) expect(others).toContain(example);
    expect(request?.schema).toBeDefined();
  });

  it('describes a web env by its family, so web tasks get variations too', async () => {
    const web: Task = {
      id: 'web:forum/1',
      env: 'web:forum',
      instruction: 'Upvote the post "Cast iron care".',
      origin: 'seed',
    };
    const pool = SqliteTaskPool.open();
    await pool.add([web]);
    const llm = new MockLlm({ answers: [answer('Downvote the post "Sourdough starter tips".')] });
    const { tasks } = await new LlmTaskGenerator({ llm }).generate({
      parent: web,
      count: 1,
      pool,
      rng: new Rng(0),
    });
    expect(tasks.map((t) => t.instruction)).toEqual([
      'Downvote the post "Sourdough starter tips".',
    ]);
    const prompt = llm.requests[0]?.messages.map((m) => m.content).join('\n') ?? '';
    expect(prompt).toContain('Environment: web:forum, a web site in a browser after WebArena');
  });

  it('asks the same way given the same random stream, so a cached run replays', async () => {
    const runs = [
      await setup([answer('put two hot potatoes in the fridge.')]),
      await setup([answer('x')]),
    ];
    for (const run of runs) await run.generate(3);
    const [first, second] = runs.map((run) => run.llm.requests[0]);
    expect(second?.messages).toEqual(first?.messages);
    expect(second?.seed).toBe(first?.seed);
    expect(typeof first?.seed).toBe('number');
  });

  it('drops variations that repeat the parent, a pooled task or each other, and malformed ones', async () => {
    const pooledOther = seeds[3]?.instruction as string;
    const { generate } = await setup([
      answer(
        `  ${parent.instruction.toUpperCase()}  `,
        `${pooledOther.replace(/\.$/, '')}!`,
        'put two hot potatoes in the fridge.',
        'Put two hot potatoes in the fridge',
        'short',
        'first line\nsecond line of a two-line task',
        'x'.repeat(500),
        'find a clean plate and put it in the cabinet.',
      ),
    ]);
    const { tasks, warnings } = await generate(3);
    expect(tasks.map((t) => t.instruction)).toEqual([
      'put two hot potatoes in the fridge.',
      'find a clean plate and put it in the cabinet.',
    ]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/2 of 3 variations .* usable; the answer had 8/);
  });

  it('returns at most the count asked for', async () => {
    const { generate } = await setup([
      answer(
        'put two hot potatoes in the fridge.',
        'put a cool egg in the microwave.',
        'put a clean fork in the drawer.',
      ),
    ]);
    expect((await generate(2)).tasks).toHaveLength(2);
  });

  it('survives garbage and failures: no tasks, a warning, no exception', async () => {
    const garbage: MockAnswer[] = [
      'Sure! Here are some tasks: 1. put a mug in the sink',
      { tasks: 'put a mug in the sink' },
      { variations: [{ instruction: 'put a mug in the sink.' }] },
      { tasks: [{ text: 'put a mug in the sink.' }] },
      '',
      new LlmTimeoutError('http://127.0.0.1:8000/v1', 60_000),
    ];
    const { generate } = await setup(garbage);
    for (let i = 0; i < garbage.length; i++) {
      const { tasks, warnings } = await generate(3);
      expect(tasks).toEqual([]);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(new RegExp(`^llm:mock: no variations of ${parent.id}: `));
    }
  });

  it('lets programming errors through: only LLM failures are recoverable', async () => {
    const { generate } = await setup([]);
    await expect(generate(1)).rejects.toThrow(/only 0 answers were scripted/);
  });
});
