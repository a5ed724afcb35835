/**
 * One server instance of the many-process PostgreSQL task-pool test: `URL I N` takes N batch
 * slots from the shared pool one after another, as a served feed does (making a batch with the
 * curriculum when the current one is all handed out), and files a reward for each at once. Prints
 * a JSON summary: the slots it took and the iterations it made.
 */
import type { Task } from '../../core/types.ts';
import { Curriculum } from '../curriculum.ts';
import type { TaskGenerator } from '../generators/generator.ts';
import { PostgresTaskPool } from '../postgres-task-pool.ts';
import { generatedTask } from '../task-identity.ts';

const [url, , count] = process.argv.slice(2) as [string, string, string];
const seeds: Task[] = Array.from({ length: 8 }, (_, i) => ({
  id: `toy/${i}`,
  env: 'toy',
  instruction: `fetch toy number ${i}`,
  spec: { n: i },
  origin: 'seed',
}));
/** Varies a parent the same way in every process, so that they would add the same tasks. */
const generator: TaskGenerator = {
  name: 'numbered',
  async generate({ parent, count }) {
    const tasks = Array.from({ length: count }, (_, k) =>
      generatedTask(parent, `${parent.instruction}, then hide it in place ${k}`),
    );
    return { tasks, warnings: [] };
  },
};

const pool = await PostgresTaskPool.open({ url, poolSize: 3 });
const curriculum = new Curriculum(
  { pool, seedTasks: seeds, generator },
  { mode: 'variance', generatedShare: 0.5, seed: 1 },
);
const slots: Array<[number, number, string]> = [];
const made: number[] = [];
while (slots.length < Number(count)) {
  const slot = await pool.handOut();
  if (!slot) {
    await pool.startBatch(3, async (iteration) => {
      made.push(iteration);
      return curriculum.next(iteration, 4);
    });
    continue;
  }
  slots.push([slot.iteration, slot.slot, slot.task.id]);
  await pool.addToGroup(slot.iteration, slot.task.id, slot.slot % 2);
}
await pool.close();
console.log(JSON.stringify({ slots, made }));
