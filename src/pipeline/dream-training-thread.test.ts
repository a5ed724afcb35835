import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { trainDreamInWorker } from './dream-training-thread.ts';

describe('trainDreamInWorker', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dreamgym-dream-thread-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("rejects with the job's own error, naming the thread", async () => {
    await expect(
      trainDreamInWorker({
        site: 'web:forum',
        bufferPath: join(dir, 'buffer.db'),
        taskIds: [],
        startPolicy: join(dir, 'no-such-policy'),
        outPolicy: join(dir, 'out'),
        trainer: { algo: 'ppo', iterations: 1 },
        maxEpisodeSteps: 4,
      }),
    ).rejects.toThrow(/web:forum ppo training thread failed: cannot read a choice policy/);
  }, 60_000);
});
