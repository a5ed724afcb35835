import { describe, expect, it } from 'vitest';
import type { Task } from '../../core/types.ts';
import { LlmOutputError } from '../../llm/errors.ts';
import { MockLlm } from '../../llm/mock-llm.ts';
import { toJsonSchema } from '../../llm/structured.ts';
import type { ExperienceRequest } from '../experience-model.ts';
import { LlmExperienceModel } from './llm-model.ts';

const task: Task = { id: 't', env: 'webshop', instruction: 'buy a blue mug', origin: 'seed' };
const request: ExperienceRequest = {
  task,
  history: [],
  state: {
    text: 'WebShop\nInstruction:\nbuy a blue mug\n[Search]',
    instruction: task.instruction,
    actions: ['search[<query>]'],
  },
  action: 'search[blue mug]',
  demonstrations: [],
};
const page = {
  next_state: {
    text: '[Back to Search]\nPage 1 (Total results: 0)',
    actions: ['click[Back to Search]'],
  },
  reward: 0,
  terminated: false,
};

describe('the − reasoning experience model', () => {
  it('asks for the prediction alone: no reasoning rule, no reasoning field in format or schema', async () => {
    const llm = new MockLlm({ answers: [page] });
    const model = new LlmExperienceModel({ llm, reasoning: false });
    const prediction = await model.predict(request);
    expect(model.id).toBe('llm/mock/no-reasoning');
    const sent = llm.requests[0];
    const text = sent?.messages.map((m) => m.content).join('\n') ?? '';
    expect(text).not.toMatch(/reasoning"|Reason step by step/);
    expect(text).toContain('"next_state"');
    const schema = toJsonSchema(sent?.schema as never) as {
      properties: object;
      required: string[];
    };
    expect(Object.keys(schema.properties)).toEqual(['next_state', 'reward', 'terminated']);
    expect(prediction).toMatchObject({
      reasoning: '',
      nextState: { text: page.next_state.text, actions: ['click[Back to Search]'] },
      reward: 0,
      terminated: false,
    });
  });

  it('refuses a continuing state without actions, as the reasoning model does', async () => {
    const llm = new MockLlm({ answers: [{ ...page, next_state: { text: 'x', actions: [] } }] });
    const model = new LlmExperienceModel({ llm, reasoning: false });
    await expect(model.predict(request)).rejects.toBeInstanceOf(LlmOutputError);
  });

  it('the reasoning model still asks for reasoning first', async () => {
    const llm = new MockLlm({ answers: [{ reasoning: 'a search shows results', ...page }] });
    const prediction = await new LlmExperienceModel({ llm }).predict(request);
    expect(llm.requests[0]?.messages[0]?.content).toContain('1. Reason step by step first');
    expect(prediction.reasoning).toBe('a search shows results');
  });
});
