import { describe, expect, it } from 'vitest';
import type { Step } from '../../core/types.ts';
import { SqliteReplayBuffer } from '../../replay/sqlite-buffer.ts';
import { itemDeskEpisodes, itemDeskTask } from '../generic/testing/item-desk.ts';
import {
  describeFromTrajectories,
  envDescriptionFor,
  envDescriptionFromBuffer,
  GENERIC_DESCRIPTION,
  hasBuiltInDescription,
} from './env-descriptions.ts';
import { predictionMessages, resolvePromptOptions } from './prompt.ts';

describe('the description of an env nobody described, from its buffer', () => {
  const episodes = itemDeskEpisodes(0, 60, 0.3);

  it("holds the action templates, example states and the reward's behaviour", () => {
    const text = describeFromTrajectories(episodes, { summary: 'an item desk (a test env)' });
    expect(text).toContain('60 recorded real episodes');
    expect(text).toContain('an item desk (a test env)');
    for (const template of ['find[<1>]', 'get_item[<1>]', 'close_item[<1>]', 'done[<1>]'])
      expect(text).toContain(`- ${template}, e.g. `);
    expect(text).toMatch(
      /- done\[<1>\], e\.g\. done\[[^\]]+\] \(taken \d+ times; ended the episode \d+ times, \d+ of them with reward 1\)/,
    );
    expect(text).toContain(`At the start of an episode:\n${episodes[0]?.initial.text}`);
    expect(text).toContain(
      (episodes[0]?.steps[0] as Step | undefined)?.observation.text.slice(0, 40) ?? '<no step>',
    );
    expect(text).toContain('every step that did not end an episode earned 0');
    const won = episodes.filter((t) => t.steps.at(-1)?.reward === 1).length;
    expect(text).toContain(`${won} of them with reward 1 (a success)`);
  });

  it('goes into the prompt of the LLM experience model for that env', async () => {
    const buffer = SqliteReplayBuffer.open();
    await buffer.add(episodes);
    const description = await envDescriptionFromBuffer('item-desk', buffer);
    await buffer.close();
    expect(description).toBeDefined();
    expect(hasBuiltInDescription('item-desk')).toBe(false);
    expect(envDescriptionFor('item-desk')).toBe(GENERIC_DESCRIPTION);
    const task = itemDeskTask(900);
    const [system] = predictionMessages(
      {
        task,
        history: [],
        state: { text: '{"desk":"ready"}', instruction: task.instruction },
        action: 'find[Ann Lee]',
        demonstrations: [],
      },
      resolvePromptOptions({ envDescription: description as string }),
    );
    expect(system?.content).toContain('get_item[<1>]');
    expect(system?.content).toContain('At the start of an episode:\n{"desk":"ready"}');
    expect(system?.content).toContain('Rewards: every step that did not end an episode earned 0');
  });

  it('is undefined for an env the buffer has no real episode of', async () => {
    const buffer = SqliteReplayBuffer.open();
    expect(await envDescriptionFromBuffer('item-desk', buffer)).toBeUndefined();
    await buffer.close();
  });
});
