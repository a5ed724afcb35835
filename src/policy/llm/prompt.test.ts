import { describe, expect, it } from 'vitest';
import type { Task } from '../../core/types.ts';
import {
  assistantMessage,
  resolvePromptOptions,
  retryMessage,
  systemMessage,
  userMessage,
} from './prompt.ts';

const task: Task = {
  id: 't',
  env: 'household',
  instruction: 'put a mug in the sink',
  origin: 'seed',
};

describe('LLM policy prompt parts', () => {
  it('describes the env family’s actions and the answer format asked for', () => {
    const text = systemMessage('agentgym:alfworld@http://x', resolvePromptOptions());
    expect(text).toContain('go to cabinet 1');
    expect(text).toContain('Thought: <brief reasoning');
    const json = systemMessage('other-env', resolvePromptOptions({ structured: true }));
    expect(json).not.toContain('web shop');
    expect(json).toContain('{"thought": "<brief reasoning about what to do next>"');
  });

  it('writes decisions in the answer format, with or without a thought', () => {
    const text = resolvePromptOptions();
    expect(assistantMessage({ action: 'look', reasoning: 'where am I' }, text)).toBe(
      'Thought: where am I\nAction: look',
    );
    expect(assistantMessage({ action: 'look' }, text)).toBe('Action: look');
    const json = resolvePromptOptions({ structured: true });
    expect(JSON.parse(assistantMessage({ action: 'look' }, json))).toEqual({
      thought: '',
      action: 'look',
    });
    expect(retryMessage('it is empty', text)).toMatch(
      /^Your answer could not be used: it is empty\./,
    );
  });

  it('cuts long observations and says how much is left out', () => {
    const options = resolvePromptOptions({ observationChars: 10 });
    const user = userMessage(task, [], { text: 'x'.repeat(25), instruction: '' }, options);
    expect(user).toContain(`${'x'.repeat(10)}\n[… 15 more characters not shown]`);
    expect(user).toContain('Admissible actions: not listed by this environment');
  });

  it('refuses impossible sizes', () => {
    expect(() => resolvePromptOptions({ historyWindow: -1 })).toThrow(/historyWindow must be/);
    expect(() => resolvePromptOptions({ historyChars: 1.5 })).toThrow(/historyChars must be/);
  });
});
