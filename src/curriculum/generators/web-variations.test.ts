import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../core/rng.ts';
import { moduleGraph, realEnvModules } from '../../core/testing/module-graph.ts';
import type { Observation, Task, Trajectory } from '../../core/types.ts';
import {
  forum,
  home,
  POSTS,
  type Post,
  postPage,
  trajectory,
} from '../../experience/web/testing/tiny-forum.ts';
import { Curriculum } from '../curriculum.ts';
import { SqliteTaskPool } from '../sqlite-task-pool.ts';
import { fill, templateFill, WebTaskVariations } from './web-variations.ts';

const [pasta, sourdough, castIron, knife] = POSTS as [Post, Post, Post, Post];
const COUNT = "How many comments does the post '{title}' have?";
const WHO = "Who wrote the post '{{title}}'?";

/** A real episode of a WebArena-style task: its template, its slot, the pages it showed. */
function episode(
  template: string,
  title: string,
  steps: Array<[string, Observation, number?]>,
): Trajectory {
  const slots = { title };
  return trajectory(fill(template, slots), home(), steps, {
    intent_template: template,
    instantiation_dict: slots,
    eval: { reference_answers: { must_include: ['never read'] } },
  });
}

/**
 * The tiny buffer: counting questions on two posts (one success each, one failure); who-wrote
 * questions (never solved) that opened the cast-iron post, looked only at the forum's list for the
 * knife post, and stayed home for a post no page shows.
 */
function tinyBuffer(): Trajectory[] {
  const count = (post: Post, answer: number, reward: number) =>
    episode(COUNT, post.title, [
      ['click [3]', forum()],
      [`click [${4 + 2 * POSTS.indexOf(post)}]`, postPage(post)],
      [`stop [${answer}]`, postPage(post), reward],
    ]);
  return [
    count(pasta, pasta.comments.length, 1),
    count(pasta, 9, 0),
    count(sourdough, sourdough.comments.length, 1),
    episode(WHO, castIron.title, [
      ['click [3]', forum()],
      ['click [8]', postPage(castIron)],
      ['stop [someone]', postPage(castIron), 0],
    ]),
    episode(WHO, knife.title, [
      ['click [3]', forum()],
      ['stop [someone]', forum(), 0],
    ]),
    episode(WHO, 'A post nobody saw', [['stop [someone]', home(), 0]]),
  ];
}

const titleOf = (task: Task) => /'(.+)'/.exec(task.instruction)?.[1] ?? '';

async function vary(buffer: Trajectory[], parent: Task, count = 10) {
  const pool = SqliteTaskPool.open();
  await pool.add(buffer.map((t) => t.task));
  return WebTaskVariations.fromTrajectories(buffer).generate({
    parent,
    count,
    pool,
    rng: new Rng(0),
  });
}

describe('WebTaskVariations', () => {
  it('fills the parent\u2019s template with entities only the buffer\u2019s real pages have shown', async () => {
    const buffer = tinyBuffer();
    const parent = (buffer[0] as Trajectory).task;
    const { tasks, warnings } = await vary(buffer, parent);
    expect(warnings).toEqual([]);
    // Cast iron's page is in the buffer; the knife post stood only in a list, the last title on
    // no page at all, and sourdough's count question is a seed task already.
    expect(tasks.map(titleOf)).toEqual([castIron.title]);
    const pages = buffer.flatMap((t) => [t.initial, ...t.steps.map((s) => s.observation)]);
    for (const task of tasks) {
      expect(task).toMatchObject({ env: parent.env, origin: 'generated', parentId: parent.id });
      expect(task.spec).toBeUndefined();
      expect(task.instruction).toBe(fill(COUNT, { title: titleOf(task) }));
      expect(pages.some((p) => p.text.includes(`heading '${titleOf(task)}'`))).toBe(true);
    }
  });

  it('drops a variation the reward model cannot judge: no real success of its template', async () => {
    const buffer = tinyBuffer();
    // Who-wrote was never solved: its variations would be judged by fitted features alone.
    const parent = (buffer[3] as Trajectory).task;
    expect(templateFill(parent)?.template).toBe(WHO);
    expect((await vary(buffer, parent)).tasks).toEqual([]);
    // The same buffer with one who-wrote success varies it.
    const solved = episode(WHO, sourdough.title, [
      ['click [3]', forum()],
      ['click [6]', postPage(sourdough)],
      ['stop [baker]', postPage(sourdough), 1],
    ]);
    const { tasks } = await vary([...buffer, solved], parent);
    expect(tasks.map(titleOf)).toEqual([pasta.title]);
  });

  it('asks for as many real successes of the template as told', async () => {
    const buffer = tinyBuffer();
    const parent = (buffer[0] as Trajectory).task;
    const generate = (min: number, trajectories: Trajectory[]) =>
      WebTaskVariations.fromTrajectories(trajectories, { minTemplateEvidence: min }).generate({
        parent,
        count: 10,
        pool: SqliteTaskPool.open(),
        rng: new Rng(0),
      });
    // The counting template has two real successes (pasta, sourdough): enough for 2, not 3.
    expect((await generate(2, buffer)).tasks.map(titleOf)).toContain(castIron.title);
    expect((await generate(3, buffer)).tasks).toEqual([]);
    // Without the sourdough success, one is left: too few for 2.
    const once = buffer.filter((_, i) => i !== 2);
    expect((await generate(1, once)).tasks.map(titleOf)).toContain(castIron.title);
    expect((await generate(2, once)).tasks).toEqual([]);
  });

  it('keeps only tasks whose entities stood together on one page', async () => {
    const which = "Which comment of '{title}' says '{comment}'?";
    const quote = "Quote the comment '{comment}' under '{title}'.";
    const visitBoth = (template: string, title: string, comment: string, reward: number) =>
      trajectory(
        fill(template, { title, comment }),
        home(),
        [
          ['click [3]', forum()],
          ['click [4]', postPage(pasta)],
          ['click [2]', home()],
          ['click [3]', forum()],
          ['click [8]', postPage(castIron)],
          ['stop [1]', postPage(castIron), reward],
        ],
        { intent_template: template, instantiation_dict: { title, comment } },
      );
    const buffer = [
      visitBoth(which, pasta.title, pasta.comments[0] as string, 1),
      visitBoth(quote, castIron.title, castIron.comments[0] as string, 0),
    ];
    const { tasks } = await vary(buffer, buffer[0]?.task as Task);
    // Cast iron's comment and title stand on its page together; pasta's comment with cast
    // iron's title, or the other way round, on no page.
    expect(tasks.map((t) => t.instruction)).toEqual([
      fill(which, { title: castIron.title, comment: castIron.comments[0] as string }),
    ]);
  });

  it('varies its own variations in turn', async () => {
    const buffer = tinyBuffer();
    const pool = SqliteTaskPool.open();
    await pool.add(buffer.map((t) => t.task));
    const generator = WebTaskVariations.fromTrajectories(buffer);
    const vary = (parent: Task) => generator.generate({ parent, count: 5, pool, rng: new Rng(0) });
    const [child] = (await vary((buffer[0] as Trajectory).task)).tasks;
    await pool.add([child as Task], 1);
    const { tasks, warnings } = await vary(child as Task);
    expect(warnings).toEqual([]);
    // Cast iron's child goes back to pasta, whose question is a seed task already: none new.
    expect(tasks).toEqual([]);
  });

  it('says why it cannot vary a task without a template that fills to its instruction', async () => {
    const buffer = tinyBuffer();
    const parent: Task = { ...(buffer[0] as Trajectory).task, instruction: 'Something else.' };
    const { tasks, warnings } = await vary(buffer, parent);
    expect(tasks).toEqual([]);
    expect(warnings[0]).toMatch(/has no WebArena intent_template and instantiation_dict/);
  });

  it('gives DreamGym\u2019s curriculum more tasks than the offline ones', async () => {
    const buffer = tinyBuffer();
    const seeds = buffer.map((t) => t.task);
    const curriculum = new Curriculum(
      {
        pool: SqliteTaskPool.open(),
        seedTasks: seeds,
        generator: WebTaskVariations.fromTrajectories(buffer),
      },
      { generatedShare: 0.5 },
    );
    const first = await curriculum.next(0, 4);
    // The pasta count question is solved half the time: the informative parent.
    await curriculum.record(
      first.flatMap((t) =>
        [1, 0].map((reward) => ({
          taskId: t.id,
          reward: t.instruction === fill(COUNT, { title: pasta.title }) ? reward : 0,
        })),
      ),
    );
    const pastaCount = seeds.find((t) => t.instruction === fill(COUNT, { title: pasta.title }));
    if (!first.includes(pastaCount as Task)) {
      await curriculum.record([
        { taskId: (pastaCount as Task).id, reward: 1 },
        { taskId: (pastaCount as Task).id, reward: 0 },
      ]);
    }
    const second = await curriculum.next(1, 4);
    const generated = second.filter((t) => t.origin === 'generated');
    expect(generated.length).toBeGreaterThan(0);
    const offline = new Set(seeds.map((t) => t.instruction));
    for (const task of generated) expect(offline.has(task.instruction)).toBe(false);
    const report = await curriculum.report();
    expect(report.generatedTasks).toBe(generated.length);
  });

  it('never imports a site, the browser env or any other real env', () => {
    const graph = moduleGraph([join(import.meta.dirname, 'web-variations.ts')]);
    expect(realEnvModules(graph)).toEqual([]);
    expect([...graph].some((f) => f.includes('/src/envs/web/'))).toBe(false);
    expect([...graph].some((f) => f.endsWith('/experience/web/knowledge.ts'))).toBe(true);
  });
});
