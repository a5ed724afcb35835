import { describe, expect, it } from 'vitest';
import type { Step, Trajectory } from '../core/types.ts';
import { SqliteReplayBuffer } from '../replay/sqlite-buffer.ts';
import { itemDeskEpisodes } from './generic/testing/item-desk.ts';
import { NearestNeighborModel } from './nearest-neighbor-model.ts';
import { anyWrong, outcomeDoubt } from './uncertainty.ts';

describe('outcomeDoubt', () => {
  it('is 0 for a sure outcome either way, 1 at even odds, linear between', () => {
    expect(outcomeDoubt(0)).toBe(0);
    expect(outcomeDoubt(1)).toBe(0);
    expect(outcomeDoubt(0.5)).toBe(1);
    expect(outcomeDoubt(0.9)).toBeCloseTo(0.2, 10);
    expect(outcomeDoubt(0.1)).toBeCloseTo(0.2, 10);
  });
});

describe('anyWrong', () => {
  it('is the chance that one of independent guesses is wrong', () => {
    expect(anyWrong()).toBe(0);
    expect(anyWrong(0, 0)).toBe(0);
    expect(anyWrong(0.5, 0.5)).toBeCloseTo(0.75, 10);
    expect(anyWrong(0.2, 1)).toBe(1);
    expect(anyWrong(1.5, -1)).toBe(1);
  });
});

describe("NearestNeighborModel's uncertainty", () => {
  it('is 0 for a real transition retrieved exactly, more the less alike the copied one is', async () => {
    const offline = itemDeskEpisodes(0, 100);
    const buffer = SqliteReplayBuffer.open();
    await buffer.add(offline);
    const model = new NearestNeighborModel();
    const predict = async (trajectory: Trajectory, t: number, action: string) => {
      const state = t === 0 ? trajectory.initial : (trajectory.steps[t - 1] as Step).observation;
      const request = { task: trajectory.task, state, action };
      const demonstrations = await buffer.retrieve(request, 4, { env: 'item-desk' });
      return {
        demonstrations,
        ...(await model.predict({
          ...request,
          history: trajectory.steps.slice(0, t),
          demonstrations,
        })),
      };
    };
    const real = offline[3] as Trajectory;
    const exact = await predict(real, 1, (real.steps[1] as Step).action);
    expect(exact.demonstrations[0]?.similarity).toBeCloseTo(1, 6);
    expect(exact.uncertainty).toBeLessThan(1e-3);
    // An id no real step closed: the copy answers another action (cosine ≈ 0.85, about 32°).
    const unseen = await predict(real, 1, 'close_item[K-0042]');
    expect(unseen.uncertainty).toBeGreaterThan(0.3);
    const odd = await predict(real, 1, 'frobnicate the desk');
    expect(odd.uncertainty).toBeGreaterThan(unseen.uncertainty as number);
    const none = await model.predict({
      task: real.task,
      history: [],
      state: real.initial,
      action: 'x',
      demonstrations: [],
    });
    expect(none.uncertainty).toBe(1);
    // A step this episode took from the same state: shown again, as sure as the episode.
    const again = await model.predict({
      task: real.task,
      history: real.steps.slice(0, 2),
      state: (real.steps[0] as Step).observation,
      action: (real.steps[1] as Step).action,
      demonstrations: [],
    });
    expect(again.reasoning).toMatch(/same state earlier in this episode/);
    expect(again.uncertainty).toBe(0);
    await buffer.close();
  });
});
