import { describe, expect, it } from 'vitest';
import type { Observation, Trajectory } from '../../core/types.ts';
import { toDpoLines } from './to-dpo-pairs.ts';

const room: Observation = {
  text: 'a room with a key and a lamp',
  instruction: 'get the key',
  actions: ['take key', 'take lamp'],
};
const hall: Observation = { text: 'a hall', instruction: 'get the key', actions: ['go north'] };

function episode(id: string, last: string, reward: number): Trajectory {
  const done: Observation = { text: 'done', instruction: 'get the key', actions: [] };
  return {
    id,
    env: 'rooms',
    task: { id: 'key', env: 'rooms', instruction: 'get the key', origin: 'seed' },
    initial: hall,
    steps: [
      { action: 'go north', observation: room, reward: 0, terminated: false, truncated: false },
      { action: last, observation: done, reward, terminated: true, truncated: false },
    ],
    provenance: 'real-online',
    policyId: 'llm',
    startedAt: '',
    endedAt: '',
  };
}

describe('toDpoLines', () => {
  it("writes TRL's conversational preference lines: the policy's prompt, then one answer each", () => {
    const lines = toDpoLines([episode('win', 'take key', 1), episode('lose', 'take lamp', 0)]);
    expect(lines).toHaveLength(1);
    const [line] = lines;
    expect(line?.prompt.map((m) => m.role)).toEqual(['system', 'user']);
    expect(line?.prompt[1]?.content).toContain('Task: get the key');
    // The prompt is the one of the decision in the room: one step (go north) behind it.
    expect(line?.prompt[1]?.content).toContain('Action: go north');
    expect(line?.prompt[1]?.content).toContain('- take lamp');
    expect(line?.chosen).toEqual([{ role: 'assistant', content: 'Action: take key' }]);
    expect(line?.rejected).toEqual([{ role: 'assistant', content: 'Action: take lamp' }]);
    expect(Object.keys(line ?? {})).toEqual(['prompt', 'chosen', 'rejected']);
  });

  it('answers in the structured format when the policy does, and finds nothing without a failure', () => {
    const [line] = toDpoLines([episode('win', 'take key', 1), episode('lose', 'take lamp', 0)], {
      structured: true,
    });
    expect(JSON.parse(line?.chosen[0]?.content ?? '')).toEqual({ thought: '', action: 'take key' });
    expect(toDpoLines([episode('win', 'take key', 1)])).toEqual([]);
  });
});
