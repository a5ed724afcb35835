/**
 * One process of the many-process PostgreSQL test: `writer URL I N` adds N episodes (ids
 * `w<I>-<n>`, in batches of 5); `reader URL I N` retrieves until it has seen every writer's
 * episodes in the buffer (4 × N) or given up, and checks each answer. Prints a JSON summary.
 */
import type { Trajectory } from '../../core/types.ts';
import { PostgresReplayBuffer } from '../postgres-buffer.ts';
import { TransitionEncoder } from '../transition-encoder.ts';

const [role, url, index, count] = process.argv.slice(2) as [string, string, string, string];
const episodes = Number(count);
const buffer = await PostgresReplayBuffer.open({
  url,
  encoder: new TransitionEncoder(),
  poolSize: 2,
});

function episode(id: string, n: number): Trajectory {
  const page = (s: number) => ({
    text: `page ${id} step ${s} item ${n % 17}`,
    instruction: `buy item ${n % 17}`,
  });
  return {
    id,
    env: 'shop',
    task: { id: `task-${n % 17}`, env: 'shop', instruction: `buy item ${n % 17}`, origin: 'seed' },
    initial: page(0),
    steps: [0, 1].map((t) => ({
      action: `click[${id} ${t}]`,
      observation: page(t + 1),
      reward: t === 1 ? 1 : 0,
      terminated: t === 1,
      truncated: false,
    })),
    provenance: 'real-online',
    policyId: `worker-${index}`,
    startedAt: '2025-01-01T00:00:00.000Z',
    endedAt: '2025-01-01T00:00:01.000Z',
  };
}

if (role === 'writer') {
  let added = 0;
  for (let n = 0; n < episodes; n += 5) {
    const batch = Array.from({ length: Math.min(5, episodes - n) }, (_, i) =>
      episode(`w${index}-${n + i}`, n + i),
    );
    added += (await buffer.add(batch)).added;
  }
  console.log(JSON.stringify({ role, added }));
} else {
  let retrieves = 0;
  let seen = 0;
  for (const started = Date.now(); Date.now() - started < 120_000; retrieves++) {
    const n = retrieves % episodes;
    const found = await buffer.retrieve(
      {
        state: { text: `page w0-${n} step 0 item ${n % 17}` },
        action: `click[w0-${n} 0]`,
        task: { instruction: `buy item ${n % 17}` },
      },
      4,
    );
    for (const r of found) {
      if (r.trajectoryId === undefined || r.state === undefined || !(r.similarity <= 1.0001))
        throw new Error(`malformed answer ${JSON.stringify(r)}`);
    }
    seen = (await buffer.stats()).trajectories;
    if (seen === 4 * episodes && retrieves > 20) break;
  }
  console.log(JSON.stringify({ role, retrieves, seen }));
}
await buffer.close();
