import { describe, expect, it } from 'vitest';
import { Rng } from '../../core/rng.ts';
import type { Observation, Step, Task } from '../../core/types.ts';
import { validateTrajectory } from '../../data/trajectory-format.ts';
import { ENVS } from '../../envs/registry.ts';
import type { LlmRequest } from '../../llm/client.ts';
import { LlmOutputError, LlmTimeoutError } from '../../llm/errors.ts';
import { MockLlm } from '../../llm/mock-llm.ts';
import { runEpisode } from '../../rl/episode.ts';
import { PolicyOutputError } from '../errors.ts';
import { LlmPolicy } from './llm-policy.ts';
import { promptedActions, promptedTask } from './testing.ts';

const task: Task = {
  id: 'ws/1',
  env: 'webshop',
  instruction: 'i need a red ceramic mug under 20 dollars',
  origin: 'seed',
};
const observation: Observation = {
  text: '[Back to Search]\nPage 1 (Total results: 2)\n[B0MUG00001]\nRed ceramic mug\n$12.00',
  instruction: task.instruction,
  actions: ['click[Back to Search]', 'click[B0MUG00001]'],
};
const step = (i: number): Step => ({
  action: `search[query ${i}]`,
  observation: { ...observation, text: `results page ${i}` },
  reward: 0,
  terminated: false,
  truncated: false,
});
const context = (history: Step[] = []) => ({ task, history, rng: new Rng(1) });
const userPrompt = (request: LlmRequest<unknown> | undefined) => request?.messages[1]?.content;

/** A model that plays WebShop sensibly from what the prompt lists: search, open a result, buy. */
function shopper(request: LlmRequest<unknown>): string {
  const actions = promptedActions(request.messages);
  const instruction = promptedTask(request.messages);
  const choice = actions.includes('search[<query>]')
    ? `search[${instruction}]`
    : (actions.find((a) => a === 'click[Buy Now]') ??
      actions.find((a) => /^click\[B0/.test(a)) ??
      'click[Back to Search]');
  return `Thought: the next step towards "${instruction}".\nAction: ${choice}`;
}

describe('LlmPolicy prompt', () => {
  it('shows the instruction, the last steps of the window, the observation and the actions', async () => {
    const llm = new MockLlm({ answers: ['Thought: open it.\nAction: click[B0MUG00001]'] });
    const policy = new LlmPolicy({ llm, historyWindow: 2 });
    await policy.act(observation, context([1, 2, 3, 4, 5].map(step)));
    const [system, user] = llm.requests[0]?.messages ?? [];
    expect(system?.role).toBe('system');
    expect(system?.content).toContain('search[<query>]');
    expect(system?.content).toContain('Action: <one action>');
    expect(user?.content).toContain(`Task: ${task.instruction}`);
    expect(user?.content).toContain('Your last 2 steps, oldest first (3 earlier not shown):');
    expect(user?.content).toContain(
      'Step 4\nAction: search[query 4]\nObservation:\nresults page 4',
    );
    expect(user?.content).toContain('Step 5\nAction: search[query 5]');
    expect(user?.content).not.toContain('query 3');
    expect(user?.content).toContain(`Current observation:\n${observation.text}`);
    expect(promptedActions(llm.requests[0]?.messages ?? [])).toEqual(observation.actions);
  });

  it('says when an earlier action changed nothing, and shows no history with a window of 0', async () => {
    const refused: Step = { ...step(1), info: { invalidAction: 'no such button' } };
    const llm = new MockLlm({
      answers: ['Action: click[B0MUG00001]', 'Action: click[B0MUG00001]'],
    });
    await new LlmPolicy({ llm }).act(observation, context([refused, step(2)]));
    expect(userPrompt(llm.requests[0])).toContain('Observation: (nothing changed: no such button)');
    await new LlmPolicy({ llm, historyWindow: 0 }).act(observation, context([refused, step(2)]));
    expect(userPrompt(llm.requests[1])).toContain('Your steps so far: 2 (not shown).');
    expect(userPrompt(llm.requests[1])).not.toContain('search[query');
  });

  it('sends its sampling options and a per-request seed drawn from the episode stream', async () => {
    const llm = new MockLlm({
      answers: ['Action: click[B0MUG00001]', 'Action: click[B0MUG00001]'],
    });
    const policy = new LlmPolicy({ llm, temperature: 0, maxTokens: 64 });
    await policy.act(observation, context());
    await policy.act(observation, context());
    expect(llm.requests[0]).toMatchObject({ temperature: 0, maxTokens: 64 });
    expect(llm.requests[0]?.seed).toBe(llm.requests[1]?.seed);
    expect(policy.id).toBe('llm(mock, t=0)');
  });

  it('uses a system prompt override as given', async () => {
    const llm = new MockLlm({ answers: ['Action: click[B0MUG00001]'] });
    await new LlmPolicy({ llm, systemPrompt: 'Shop well.' }).act(observation, context());
    expect(llm.requests[0]?.messages[0]).toEqual({ role: 'system', content: 'Shop well.' });
  });
});

describe('LlmPolicy answers', () => {
  it('returns the matched action and the thought as reasoning', async () => {
    const llm = new MockLlm({
      answers: ['Thought: a red mug at $12.\nAction: `click[b0mug00001]`'],
    });
    const decision = await new LlmPolicy({ llm }).act(observation, context());
    expect(decision).toEqual({ action: 'click[B0MUG00001]', reasoning: 'a red mug at $12.' });
  });

  it('retries an unusable answer once, showing the model its answer and the problem', async () => {
    const llm = new MockLlm({
      answers: ['Action: click[Add to Cart]', 'Thought: right.\nAction: click[B0MUG00001]'],
    });
    const decision = await new LlmPolicy({ llm }).act(observation, context());
    expect(decision.action).toBe('click[B0MUG00001]');
    const retry = llm.requests[1]?.messages ?? [];
    expect(retry.slice(0, 2)).toEqual(llm.requests[0]?.messages);
    expect(retry[2]).toEqual({ role: 'assistant', content: 'Action: click[Add to Cart]' });
    expect(retry[3]?.role).toBe('user');
    expect(retry[3]?.content).toContain(
      '"click[Add to Cart]" is not one of the admissible actions',
    );
  });

  it('throws PolicyOutputError with the attempt when the retry fails too', async () => {
    const llm = new MockLlm({
      answers: ['I am not sure.', 'Thought: maybe the cart.\nAction: click[Add to Cart]'],
    });
    const error = await new LlmPolicy({ llm }).act(observation, context()).catch((e) => e);
    expect(error).toBeInstanceOf(PolicyOutputError);
    expect(error).toMatchObject({
      attemptedAction: 'click[Add to Cart]',
      reasoning: 'maybe the cart.',
    });
    expect(error.message).toMatch(/no usable action after a retry.*structured output/);
  });

  it('asks for JSON with a schema when structured, and retries an answer that does not fit', async () => {
    const llm = new MockLlm({
      answers: [
        new LlmOutputError('mock', 'invalid-json', 'Unexpected token', 'click it'),
        { thought: 'open it', action: 'click[B0MUG00001]' },
      ],
    });
    const decision = await new LlmPolicy({ llm, structured: true }).act(observation, context());
    expect(decision).toEqual({ action: 'click[B0MUG00001]', reasoning: 'open it' });
    expect(llm.requests[0]?.schema).toBeDefined();
    expect(llm.requests[0]?.messages[0]?.content).toContain('{"thought":');
    expect(llm.requests[1]?.messages[2]).toEqual({ role: 'assistant', content: 'click it' });
    expect(llm.requests[1]?.messages[3]?.content).toContain('not the JSON object asked for');
  });

  it('lets errors reaching the model propagate', async () => {
    const llm = new MockLlm({ answers: [new LlmTimeoutError('http://x/v1', 10)] });
    await expect(new LlmPolicy({ llm }).act(observation, context())).rejects.toBeInstanceOf(
      LlmTimeoutError,
    );
  });
});

describe('LlmPolicy in real webshop episodes', () => {
  const webshop = ENVS.webshop;
  if (!webshop) throw new Error('webshop is not registered');
  const tasks = webshop.tasks({ split: 'test' }).tasks('test', 3);

  it('completes episodes when the model answers with admissible actions', async () => {
    const env = webshop.make({ split: 'test' });
    const llm = new MockLlm({ answers: shopper });
    const policy = new LlmPolicy({ llm });
    const rewards: number[] = [];
    for (const [i, t] of tasks.entries()) {
      const trajectory = await runEpisode(env, policy, {
        task: t,
        seed: i,
        provenance: 'real-online',
      });
      const last = trajectory.steps.at(-1);
      expect(last?.terminated).toBe(true);
      expect(last?.action).toBe('click[Buy Now]');
      expect(trajectory.steps.every((s) => s.info?.invalidAction === undefined)).toBe(true);
      expect(trajectory.steps[0]?.reasoning).toMatch(/^the next step towards/);
      expect(trajectory.policyId).toBe('llm(mock, t=1)');
      rewards.push(last?.reward ?? 0);
    }
    // Searching for the instruction and buying the first result scores on real pages.
    expect(Math.max(...rewards)).toBeGreaterThan(0);
  });

  it('ends the episode as truncated by policy-error when the model never answers usably', async () => {
    const env = webshop.make({ split: 'test' });
    let calls = 0;
    const llm = new MockLlm({
      answers: (request) =>
        ++calls <= 2 ? shopper(request) : 'Thought: I give up.\nAction: click[Checkout]',
    });
    const trajectory = await runEpisode(env, new LlmPolicy({ llm }), {
      task: tasks[0] as Task,
      seed: 0,
      provenance: 'real-online',
    });
    expect(trajectory.steps).toHaveLength(3);
    const [, second, last] = trajectory.steps;
    expect(last).toMatchObject({
      action: 'click[Checkout]',
      reward: 0,
      terminated: false,
      truncated: true,
      reasoning: 'I give up.',
      info: { truncatedBy: 'policy-error' },
    });
    expect(last?.info?.invalidAction).toContain('not one of the admissible actions');
    expect(last?.observation).toEqual(second?.observation);
    expect(() => validateTrajectory(trajectory)).not.toThrow();
    expect(llm.requests).toHaveLength(4);
  });
});
