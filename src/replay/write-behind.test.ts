import { describe, expect, it } from 'vitest';
import type { Trajectory } from '../core/types.ts';
import type { AddResult } from './replay-buffer.ts';
import { WriteBehind } from './write-behind.ts';

function episode(n: number): Trajectory {
  return {
    id: `e${n}`,
    env: 'shop',
    task: { id: 't', env: 'shop', instruction: 'buy', origin: 'seed' },
    initial: { text: 'start', instruction: 'buy' },
    steps: [{ action: 'buy', observation: { text: 'done' }, reward: 1, terminated: true }],
    provenance: 'synthetic',
    policyId: 'remote',
    startedAt: '2025-01-01T00:00:00.000Z',
    endedAt: '2025-01-01T00:00:01.000Z',
  } as Trajectory;
}

/** A buffer whose adds wait until the test opens it, and that records what it stored. */
class GatedBuffer {
  readonly path = 'gated.db';
  readonly stored: string[] = [];
  adds = 0;
  failures = 0;
  private gate: Promise<void> | undefined;
  private open: () => void = () => {};

  close(): void {
    this.gate = new Promise((resolve) => {
      this.open = resolve;
    });
  }

  release(): void {
    this.open();
    this.gate = undefined;
  }

  async add(trajectories: readonly Trajectory[]): Promise<AddResult> {
    this.adds++;
    await this.gate;
    if (this.failures > 0) {
      this.failures--;
      throw new Error('connection refused');
    }
    this.stored.push(...trajectories.map((t) => t.id));
    return { added: trajectories.length, skipped: 0 };
  }
}

/** Whether `promise` has settled after the queued callbacks ran. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => {
    done = true;
  });
  await new Promise((resolve) => setTimeout(resolve, 10));
  return done;
}

describe('WriteBehind', () => {
  it('past its bound, holds pushes back until the buffer takes them, and drops none', async () => {
    const buffer = new GatedBuffer();
    const warnings: string[] = [];
    const writer = new WriteBehind(buffer, { maxUnwritten: 3, warn: (m) => warnings.push(m) });
    buffer.close();
    const pushes = Array.from({ length: 10 }, (_, n) => writer.push(episode(n)));
    const answered = await Promise.all(pushes.map(settled));
    // Three answered at once; the rest wait: their final steps are answered later.
    expect(answered).toEqual([true, true, true, ...Array(7).fill(false)]);
    expect(warnings.join('\n')).toMatch(/back-pressure/);
    buffer.release();
    await Promise.all(pushes);
    await writer.close();
    expect(buffer.stored.sort()).toEqual(Array.from({ length: 10 }, (_, n) => `e${n}`).sort());
    expect(warnings.join('\n')).not.toMatch(/dropp|lost/);
  });

  it('with maxUnwritten 0, a push resolves only once its episode is written', async () => {
    const buffer = new GatedBuffer();
    const writer = new WriteBehind(buffer, { maxUnwritten: 0, warn: () => {} });
    buffer.close();
    const push = writer.push(episode(1));
    expect(await settled(push)).toBe(false);
    expect(buffer.stored).toEqual([]);
    buffer.release();
    await push;
    expect(buffer.stored).toEqual(['e1']);
    await writer.close();
  });

  it('writes what waits in one add, and tries a failed add again instead of losing it', async () => {
    const buffer = new GatedBuffer();
    const warnings: string[] = [];
    const writer = new WriteBehind(buffer, { maxUnwritten: 0, warn: (m) => warnings.push(m) });
    buffer.failures = 1;
    const pushes = [1, 2, 3].map((n) => writer.push(episode(n)));
    await Promise.all(pushes);
    expect(buffer.stored).toEqual(['e1', 'e2', 'e3']);
    expect(buffer.adds).toBe(2);
    expect(warnings).toEqual([expect.stringMatching(/could not store 3 episodes.*trying again/)]);
    await writer.close();
  });

  it('at close, gives up on a write that still fails and says how many episodes were lost', async () => {
    const buffer = new GatedBuffer();
    const warnings: string[] = [];
    const writer = new WriteBehind(buffer, { warn: (m) => warnings.push(m) });
    buffer.failures = 100;
    await writer.push(episode(1));
    await new Promise((resolve) => setTimeout(resolve, 10));
    await writer.close();
    expect(buffer.stored).toEqual([]);
    expect(warnings.at(-1)).toMatch(/1 episodes could not be stored in gated.db before it closed/);
  });
});
