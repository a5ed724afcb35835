/**
 * Child process for the durability test: adds trajectories to the buffer at argv[2] in batches
 * of argv[3], forever, printing `committed <count>` after each transaction commits. The test
 * kills it with SIGKILL mid-insert. Small chunks make every batch a bulk add, whose transaction
 * stays open while the next chunk is embedded.
 */
import { SqliteReplayBuffer } from '../sqlite-buffer.ts';
import { relabel, webshopTrajectories } from './fixtures.ts';

const [path, batchArg] = process.argv.slice(2);
const batch = Number(batchArg);
const base = await webshopTrajectories(batch);
const buffer = SqliteReplayBuffer.open({ path: path as string, chunkSize: 64 });
for (let round = 0; ; round++) {
  await buffer.add(relabel(base, 'real-offline', `r${round}`));
  process.stdout.write(`committed ${(round + 1) * batch}\n`);
}
