import assert from 'node:assert/strict';
import type { Provenance, Step, Trajectory } from '../core/types.ts';
import type { TestRunner } from '../envs/conformance.ts';
import type { ReplayBuffer } from './replay-buffer.ts';

/** The buffer implementation under test. */
export interface BufferConformanceOptions {
  /** Shown in the test names. */
  name: string;
  /** A new, empty buffer; each test opens its own and closes it. */
  open: () => Promise<ReplayBuffer>;
}

/**
 * The contract every replay buffer must keep (see `ReplayBuffer`): run it from a test file with
 * `runReplayBufferConformance({ name, open }, { describe, it })`. The SQLite, PostgreSQL and
 * PGlite (pgvector) buffers all go through it.
 */
export function runReplayBufferConformance(
  options: BufferConformanceOptions,
  { describe, it }: TestRunner,
): void {
  const withBuffer = (body: (buffer: ReplayBuffer) => Promise<void>) => async () => {
    const buffer = await options.open();
    try {
      await body(buffer);
    } finally {
      await buffer.close();
    }
  };

  describe(`replay buffer conformance: ${options.name}`, () => {
    it(
      'stores trajectories once and reads them back exactly, filtered by env and provenance',
      withBuffer(async (buffer) => {
        const shop = episodes('shop', 'real-offline', 3);
        const house = episodes('house', 'synthetic', 2);
        assert.deepEqual(await buffer.add([...shop, ...house]), { added: 5, skipped: 0 });
        assert.deepEqual(await buffer.add([shop[0] as Trajectory]), { added: 0, skipped: 1 });
        assert.deepEqual(await all(buffer.trajectories()), [...shop, ...house]);
        assert.deepEqual(await all(buffer.trajectories({ env: 'house' })), house);
        assert.deepEqual(await all(buffer.trajectories({ provenance: 'real-offline' })), shop);
        assert.deepEqual(
          await buffer.trajectoryIds({ provenance: ['synthetic', 'real-online'] }),
          house.map((t) => t.id),
        );
        const stats = await buffer.stats();
        assert.equal(stats.trajectories, 5);
        assert.equal(stats.transitions, 5 * STEPS);
        assert.equal(stats.byEnv.shop?.['real-offline']?.transitions, 3 * STEPS);
        assert.equal(stats.byEnv.house?.synthetic?.trajectories, 2);
        assert.equal(stats.encoder, buffer.encoder.id);
      }),
    );

    it(
      'adds all or nothing: a source that fails midway leaves no trajectory behind',
      withBuffer(async (buffer) => {
        async function* failing() {
          yield* episodes('shop', 'real-offline', 2);
          throw new Error('source broke');
        }
        await assert.rejects(buffer.addStream(failing()), /source broke/);
        assert.equal((await buffer.stats()).trajectories, 0);
        async function* whole() {
          yield* episodes('shop', 'real-offline', 2);
        }
        assert.deepEqual(await buffer.addStream(whole()), { added: 2, skipped: 0 });
        assert.equal((await buffer.stats()).transitions, 2 * STEPS);
      }),
    );

    it(
      'retrieves what an add stored as soon as the add resolves, nearest first, filtered',
      withBuffer(async (buffer) => {
        const real = episodes('shop', 'real-offline', 4);
        await buffer.add(real);
        const target = real[2] as Trajectory;
        const key = keyOf(target, 1);
        const [best] = await buffer.retrieve(key, 3);
        assert.equal(best?.trajectoryId, target.id);
        assert.equal(best?.t, 1);
        assert.ok((best?.similarity ?? 0) > 0.999, `similarity ${best?.similarity}`);
        assert.deepEqual(best?.state, target.steps[0]?.observation);
        assert.equal(best?.action, target.steps[1]?.action);
        const other = await buffer.retrieve(key, 3, { excludeTrajectory: target.id });
        assert.equal(other.length, 3);
        assert.ok(other.every((r) => r.trajectoryId !== target.id));
        assert.deepEqual(await buffer.retrieve(key, 3, { env: 'house' }), []);
        // A synthetic copy written now is found by the very next retrieve.
        const copy = { ...target, id: 'copy', provenance: 'synthetic' as const };
        await buffer.add([copy]);
        const synthetic = await buffer.retrieve(key, 2, { provenance: 'synthetic' });
        assert.equal(synthetic[0]?.trajectoryId, 'copy');
        assert.ok(synthetic.every((r) => r.provenance === 'synthetic'));
        const failed = await buffer.retrieve(key, 8, { success: false });
        assert.ok(failed.every((r) => real.some((t) => t.id === r.trajectoryId && !won(t))));
      }),
    );

    it(
      'samples stored transitions with the asked real share and env',
      withBuffer(async (buffer) => {
        await buffer.add([
          ...episodes('shop', 'real-offline', 2),
          ...episodes('shop', 'synthetic', 2, 's'),
          ...episodes('house', 'real-online', 1),
        ]);
        const real = await buffer.sample(40, { realShare: 1, env: 'shop' });
        assert.equal(real.length, 40);
        assert.ok(real.every((t) => t.provenance === 'real-offline'));
        const synthetic = await buffer.sample(20, { realShare: 0 });
        assert.ok(synthetic.every((t) => t.provenance === 'synthetic'));
        assert.deepEqual(await buffer.sample(5, { env: 'nowhere' }), []);
        await assert.rejects(buffer.sample(1, { realShare: 2 }), /realShare/);
      }),
    );

    it(
      'annotates transitions by id and refuses unknown ids',
      withBuffer(async (buffer) => {
        const [episode] = episodes('shop', 'real-offline', 1);
        await buffer.add([episode as Trajectory]);
        const stored = await buffer.trajectoryTransitions((episode as Trajectory).id);
        assert.deepEqual(
          stored.map((t) => t.t),
          [0, 1, 2],
        );
        assert.deepEqual(await buffer.trajectoryTransitions('unknown'), []);
        await buffer.setTeacherReasoning((stored[1] as { id: number }).id, 'because');
        const again = await buffer.trajectoryTransitions((episode as Trajectory).id);
        assert.equal(again[1]?.info?.teacherReasoning, 'because');
        assert.equal(again[0]?.info?.teacherReasoning, undefined);
        const ids = stored.map((t) => t.id);
        await assert.rejects(
          buffer.setTeacherReasoning(Math.max(...ids) + 1000, 'x'),
          /has no transition/,
        );
      }),
    );
  });
}

/** Steps per conformance episode. */
const STEPS = 3;

/** `count` small episodes of an env, distinct pages and actions, every other one a success. */
function episodes(env: string, provenance: Provenance, count: number, tag = ''): Trajectory[] {
  return Array.from({ length: count }, (_, i) => {
    const page = (step: number) => ({
      text: `${env} page ${tag}${i}.${step}: ${['red', 'green', 'blue', 'amber'][(i + step) % 4]} items ${i * 7 + step}`,
      instruction: `find item ${i} in ${env}`,
    });
    const steps: Step[] = Array.from({ length: STEPS }, (_, t) => ({
      action: `click[item ${i} option ${t}]`,
      observation: page(t + 1),
      reward: t === STEPS - 1 && i % 2 === 0 ? 1 : 0,
      terminated: t === STEPS - 1,
      truncated: false,
      ...(t === 0 && { info: { note: `first of ${i}` } }),
    }));
    return {
      id: `${env}-${provenance}-${tag}${i}`,
      env,
      task: {
        id: `${env}-task-${i}`,
        env,
        instruction: `find item ${i} in ${env}`,
        spec: { i },
        origin: 'seed',
      },
      initial: page(0),
      steps,
      provenance,
      policyId: 'conformance',
      seed: i,
      startedAt: '2025-01-01T00:00:00.000Z',
      endedAt: '2025-01-01T00:01:00.000Z',
    };
  });
}

/** The retrieval key of an episode's step `t`. */
function keyOf(trajectory: Trajectory, t: number) {
  const state =
    t === 0 ? trajectory.initial : (trajectory.steps[t - 1]?.observation ?? trajectory.initial);
  return { state, action: trajectory.steps[t]?.action ?? '', task: trajectory.task };
}

/** Whether a conformance episode ended in success. */
function won(trajectory: Trajectory): boolean {
  return (trajectory.steps.at(-1)?.reward ?? 0) > 0;
}

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
