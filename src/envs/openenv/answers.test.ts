import { describe, expect, it } from 'vitest';
import { readAnswer, readObservation } from './answers.ts';

describe('OpenEnv answers as dreamgym observations and steps', () => {
  it("a text field is the text; another env's fields become name: value lines", () => {
    expect(
      readObservation({ text: 'page', instruction: 'buy a mug', actions: ['click[mug]'] }, ''),
    ).toEqual({ text: 'page', instruction: 'buy a mug', actions: ['click[mug]'] });
    // TextArena's observation: prompt, messages, players; no action list.
    const arena = readObservation(
      {
        prompt: 'You are playing Wordle.',
        messages: [{ sender_id: 0, content: 'Guess!', category: 'GAME' }],
        current_player_id: 0,
      },
      '',
    );
    expect(arena).toEqual({
      text: 'prompt: You are playing Wordle.\nmessages: [{"sender_id":0,"content":"Guess!","category":"GAME"}]\ncurrent_player_id: 0',
      instruction: 'You are playing Wordle.',
    });
  });

  it('reads the instruction and action list from the usual field names; numbers become text', () => {
    expect(readObservation({ goal: 'win', legal_actions: [0, 3], board: '..x' }, 'old')).toEqual({
      text: 'goal: win\nboard: ..x',
      instruction: 'win',
      actions: ['0', '3'],
    });
    // No instruction field in a step: the episode's stays.
    expect(readObservation({ stdout: 'ok', exit_code: 0 }, 'write a program').instruction).toBe(
      'write a program',
    );
  });

  it('reward null is 0 and a boolean is 1 or 0; done is terminated', () => {
    const fields = { text: 't', instruction: 'i' };
    expect(readAnswer({ observation: fields, reward: null, done: false }, '')).toMatchObject({
      reward: 0,
      terminated: false,
      truncated: false,
      info: {},
    });
    expect(readAnswer({ observation: fields, reward: true, done: true }, '')).toMatchObject({
      reward: 1,
      terminated: true,
      truncated: false,
    });
  });

  it('metadata saying truncated makes done a truncation; invalidAction and truncatedBy reach info', () => {
    const metadata = { truncated: true, terminated: false, truncatedBy: 'time-limit' };
    const read = readAnswer(
      { observation: { text: 't', instruction: 'i', metadata }, reward: 0, done: true, metadata },
      '',
    );
    expect(read).toMatchObject({ terminated: false, truncated: true });
    expect(read.info).toEqual({ truncatedBy: 'time-limit', metadata });
    expect(read.observation).toEqual({ text: 't', instruction: 'i' });
    const invalid = readAnswer(
      {
        observation: { text: 't' },
        reward: 0,
        done: false,
        metadata: { invalidAction: 'no such button' },
      },
      'i',
    );
    expect(invalid.info.invalidAction).toBe('no such button');
  });
});
