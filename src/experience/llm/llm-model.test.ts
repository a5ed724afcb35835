import { beforeAll, describe, expect, it } from 'vitest';
import type { Observation, Step, Task, Trajectory } from '../../core/types.ts';
import { runEnvConformance } from '../../envs/conformance.ts';
import { TimeLimit } from '../../envs/wrappers/time-limit.ts';
import type { BackendAnswer, BackendRequest, ChatBackend } from '../../llm/backend.ts';
import type { LlmRequest } from '../../llm/client.ts';
import { LlmOutputError } from '../../llm/errors.ts';
import { MockLlm } from '../../llm/mock-llm.ts';
import { ResilientLlmClient } from '../../llm/resilient-client.ts';
import { LlmStats } from '../../llm/stats.ts';
import { SqliteReplayBuffer } from '../../replay/sqlite-buffer.ts';
import type { RetrievedTransition } from '../../replay/stored-transition.ts';
import { webshopTrajectories } from '../../replay/testing/fixtures.ts';
import type { ExperienceRequest } from '../experience-model.ts';
import { SyntheticEnv } from '../synthetic-env.ts';
import { LlmExperienceModel } from './llm-model.ts';
import { REAL } from './real-steps.ts';

let offline: Trajectory[];
let buffer: SqliteReplayBuffer;

beforeAll(async () => {
  offline = await webshopTrajectories(40, 1);
  buffer = SqliteReplayBuffer.open();
  await buffer.add(offline);
});

const answer = (next: Partial<Observation> = {}, reward = 0, terminated = false) => ({
  reasoning: 'The results page lists products matching the query.',
  next_state: {
    text: next.text ?? '[Back to Search]\nPage 1 (Total results: 0)',
    actions: next.actions ?? ['click[Back to Search]'],
  },
  reward,
  terminated,
});

/** A request for step `t` of a real episode, with demonstrations from other episodes. */
async function requestAt(trajectory: Trajectory, t: number): Promise<ExperienceRequest> {
  const history = trajectory.steps.slice(0, t);
  const state = t === 0 ? trajectory.initial : (history.at(-1) as Step).observation;
  const action = (trajectory.steps[t] as Step).action;
  const demonstrations = await buffer.retrieve({ state, action, task: trajectory.task }, 3, {
    env: 'webshop',
    provenance: REAL,
    excludeTrajectory: trajectory.id,
  });
  return { task: trajectory.task, history, state, action, demonstrations };
}

const longest = () => offline.reduce((a, b) => (b.steps.length > a.steps.length ? b : a));
const userMessage = (request: LlmRequest<unknown> | undefined) =>
  request?.messages[1]?.content ?? '';
const systemMessage = (request: LlmRequest<unknown> | undefined) =>
  request?.messages[0]?.content ?? '';

describe('LlmExperienceModel prompt', () => {
  it('holds the task, the retrieved demonstrations, the current state and the action', async () => {
    const llm = new MockLlm({ answers: [answer()] });
    const model = new LlmExperienceModel({ llm });
    const trajectory = longest();
    const request = await requestAt(trajectory, 2);
    await model.predict(request);
    const user = userMessage(llm.requests[0]);
    expect(user).toContain(`## Task\n${trajectory.task.instruction}`);
    expect(user).toContain(`## Action\n${request.action}`);
    expect(user).toContain(`## Current state\n${request.state.text}`);
    expect(user).toContain(`Admissible actions: ${JSON.stringify(request.state.actions)}`);
    expect(request.demonstrations).toHaveLength(3);
    for (const [i, d] of request.demonstrations.entries()) {
      expect(user).toContain(`### Demonstration ${i + 1} (similarity ${d.similarity.toFixed(2)}`);
      expect(user).toContain(`Action: ${d.action}\nNext state:\n${d.nextState.text.slice(0, 200)}`);
    }
    expect(user).not.toContain('### Demonstration 4');
    expect(systemMessage(llm.requests[0])).toContain('A text-mode web shop (after WebShop)');
  });

  it('shows exactly the last H steps of history and counts the rest', async () => {
    const llm = new MockLlm({ answers: [answer(), answer()] });
    const model = new LlmExperienceModel({ llm, historyWindow: 3 });
    const history: Step[] = [1, 2, 3, 4, 5].map((i) => ({
      action: `click[action ${i}]`,
      observation: { text: `page after action ${i}`, instruction: 'x' },
      reward: 0,
      terminated: false,
      truncated: false,
    }));
    const base = await requestAt(longest(), 0);
    await model.predict({ ...base, history });
    const user = userMessage(llm.requests[0]);
    expect(user).toContain('the last 3 of 5 steps, oldest first (2 earlier not shown)');
    for (const i of [3, 4]) {
      expect(user).toContain(
        `### Step ${i}\nAction: click[action ${i}]\nObservation:\npage after action ${i}`,
      );
    }
    expect(user).toContain(
      '### Step 5\nAction: click[action 5]\nObservation: (the current state, below)',
    );
    for (const i of [1, 2]) expect(user).not.toContain(`action ${i}`);

    await new LlmExperienceModel({ llm, historyWindow: 0 }).predict({ ...base, history });
    expect(userMessage(llm.requests[1])).not.toContain('page after action');
  });

  it('states the inadmissible-action rule and the reward range to the model', async () => {
    const llm = new MockLlm({ answers: [answer()] });
    await new LlmExperienceModel({ llm, rewardRange: [-1, 1] }).predict(
      await requestAt(longest(), 1),
    );
    const system = systemMessage(llm.requests[0]);
    expect(system).toContain(
      'An action that is not admissible in the current state changes nothing and earns reward 0',
    );
    expect(system).toContain('The reward is a number from -1 to 1');
  });

  it('takes every knob from its options', async () => {
    const llm = new MockLlm({ answers: [answer()] });
    const model = new LlmExperienceModel({
      llm,
      systemPrompt: 'CUSTOM RULES',
      envDescription: 'CUSTOM ENV',
      formatDemonstration: (d, i) => `demo#${i}:${d.action}`,
      temperature: 0.7,
      maxTokens: 300,
    });
    const request = await requestAt(longest(), 1);
    await model.predict(request);
    const sent = llm.requests[0];
    expect(systemMessage(sent)).toBe('CUSTOM RULES\n\n## The environment\nCUSTOM ENV');
    expect(userMessage(sent)).toContain(`demo#0:${request.demonstrations[0]?.action}`);
    expect(sent).toMatchObject({ temperature: 0.7, maxTokens: 300 });
  });

  it('clips long texts in demonstrations, keeping head and tail', async () => {
    const llm = new MockLlm({ answers: [answer()] });
    const request = await requestAt(longest(), 1);
    const long = `HEAD ${'x'.repeat(5000)} TAIL`;
    const demonstration = {
      ...(request.demonstrations[0] as RetrievedTransition),
      nextState: { text: long, instruction: '' },
    };
    await new LlmExperienceModel({ llm, limits: { demonstration: 300 } }).predict({
      ...request,
      demonstrations: [demonstration],
    });
    const user = userMessage(llm.requests[0]);
    expect(user).toContain('HEAD ');
    expect(user).toContain(' TAIL');
    expect(user).toContain(`[… ${long.length - 300} characters cut …]`);
  });
});

describe('LlmExperienceModel answers', () => {
  it('parses the JSON into a prediction, clamping the reward and de-duplicating actions', async () => {
    const llm = new MockLlm({
      answers: [
        answer({ text: 'next page', actions: ['click[a]', ' click[a] ', 'click[b]', ''] }, 1.7),
        answer({ text: 'done' }, -0.3, true),
      ],
    });
    const model = new LlmExperienceModel({ llm });
    const request = await requestAt(longest(), 1);
    expect(await model.predict(request)).toEqual({
      reasoning: 'The results page lists products matching the query.',
      nextState: {
        text: 'next page',
        instruction: request.task.instruction,
        actions: ['click[a]', 'click[b]'],
      },
      reward: 1,
      terminated: false,
    });
    const last = await model.predict(request);
    expect(last.reward).toBe(0);
    expect(last.terminated).toBe(true);
  });

  it('keeps the shape of states: no actions where the env lists none', async () => {
    const llm = new MockLlm({ answers: [answer({ text: 'next', actions: [] })] });
    const request = await requestAt(longest(), 1);
    const prediction = await new LlmExperienceModel({ llm }).predict({
      ...request,
      state: { text: request.state.text, instruction: request.state.instruction },
    });
    expect(prediction.nextState).toEqual({ text: 'next', instruction: request.task.instruction });
  });

  it('rejects an empty next state, and no actions in a state the episode goes on from', async () => {
    const request = await requestAt(longest(), 1);
    for (const bad of [answer({ text: '  ' }), answer({ text: 'page', actions: [] })]) {
      const model = new LlmExperienceModel({ llm: new MockLlm({ answers: [bad] }) });
      await expect(model.predict(request)).rejects.toThrow(LlmOutputError);
    }
    const ended = new LlmExperienceModel({
      llm: new MockLlm({ answers: [answer({ text: 'Thank you', actions: [] }, 1, true)] }),
    });
    expect((await ended.predict(request)).nextState.actions).toEqual([]);
  });
});

/** A backend answering from a list, for the real client's repair round. */
class ScriptedBackend implements ChatBackend {
  readonly kind = 'scripted';
  readonly server = 'scripted';
  readonly model = 'scripted';
  readonly requests: BackendRequest[] = [];
  constructor(private readonly texts: string[]) {}
  async complete(request: BackendRequest): Promise<BackendAnswer> {
    this.requests.push(request);
    const text = this.texts[this.requests.length - 1] ?? 'no more answers';
    return { text, finishReason: 'stop', usage: { promptTokens: 1, completionTokens: 1 } };
  }
}

describe('LlmExperienceModel samples: uncertainty from disagreement', () => {
  const results = answer({ text: 'Page 1 (Total results: 3)', actions: ['click[Back to Search]'] });
  const empty = answer();
  const predictWith = async (answers: unknown[], samples = answers.length) => {
    const llm = new MockLlm({ answers: answers as object[] });
    const model = new LlmExperienceModel({ llm, samples });
    return { llm, prediction: await model.predict(await requestAt(longest(), 1)) };
  };

  it('samples k answers at temperature 1; when they agree, uncertainty 0', async () => {
    const { llm, prediction } = await predictWith([results, results, results]);
    expect(llm.requests).toHaveLength(3);
    expect(llm.requests.every((r) => r.temperature === 1)).toBe(true);
    expect(prediction.nextState.text).toBe(results.next_state.text);
    expect(prediction.uncertainty).toBe(0);
  });

  it("returns the majority's answer, the share of samples that differ from it as uncertainty", async () => {
    const { prediction } = await predictWith([empty, results, results, empty, results]);
    expect(prediction.nextState.text).toBe(results.next_state.text);
    expect(prediction.uncertainty).toBeCloseTo(2 / 5, 10);
    // The same page with another reward or an ending differs as much as another page.
    const { prediction: split } = await predictWith([
      results,
      { ...results, reward: 1 },
      { ...results, terminated: true },
      results,
    ]);
    expect(split).toMatchObject({ reward: 0, terminated: false });
    expect(split.uncertainty).toBeCloseTo(2 / 4, 10);
  });

  it('counts unusable samples as disagreeing, and fails only when none is usable', async () => {
    const { prediction } = await predictWith([
      'not json',
      results,
      new LlmOutputError('mock', 'invalid-json', 'garbage', 'x'),
      results,
    ]);
    expect(prediction.nextState.text).toBe(results.next_state.text);
    expect(prediction.uncertainty).toBeCloseTo(2 / 4, 10);
    await expect(predictWith(['not json', '{}'])).rejects.toThrow(LlmOutputError);
  });

  it('is off by default: one call a step at temperature 0, no uncertainty', async () => {
    const { llm, prediction } = await predictWith([results], 1);
    expect(llm.requests).toHaveLength(1);
    expect(llm.requests[0]?.temperature).toBe(0);
    expect(prediction).not.toHaveProperty('uncertainty');
    const llmAgain = new MockLlm({ answers: [results] });
    expect(() => new LlmExperienceModel({ llm: llmAgain, samples: 3, temperature: 0 })).toThrow(
      /temperature above 0/,
    );
    expect(() => new LlmExperienceModel({ llm: llmAgain, samples: 0 })).toThrow(/whole number/);
  });
});

describe('LlmExperienceModel in a SyntheticEnv', () => {
  const synthetic = (model: LlmExperienceModel) =>
    new SyntheticEnv({
      env: 'webshop',
      model,
      buffer,
      tasks: { tasks: () => offline.map((t) => t.task) },
    });

  it('repairs garbage once, then truncates the episode with model-error', async () => {
    const backend = new ScriptedBackend(['this is not JSON', '{"reasoning": "still wrong"}']);
    const llm = new ResilientLlmClient(backend, {
      retry: { maxRetries: 0 },
      parentStats: new LlmStats(),
    });
    const env = synthetic(new LlmExperienceModel({ llm }));
    await env.reset({ task: (offline[0] as Trajectory).task });
    const step = await env.step('search[usb charger]');
    expect(step.truncated).toBe(true);
    expect(step.terminated).toBe(false);
    expect(step.reward).toBe(0);
    expect(step.info.truncatedBy).toBe('model-error');
    expect(String(step.info.error)).toContain('unusable answer after one repair round');
    expect(backend.requests).toHaveLength(2);
    expect(backend.requests[1]?.messages.at(-2)).toEqual({
      role: 'assistant',
      content: 'this is not JSON',
    });
    expect(llm.stats()).toMatchObject({ repairs: 1, failures: 1 });
  });

  it('uses the repaired answer when the second try is valid', async () => {
    const backend = new ScriptedBackend(['{"oops"', JSON.stringify(answer({ text: 'results' }))]);
    const llm = new ResilientLlmClient(backend, {
      retry: { maxRetries: 0 },
      parentStats: new LlmStats(),
    });
    const env = synthetic(new LlmExperienceModel({ llm }));
    await env.reset({ task: (offline[0] as Trajectory).task });
    const step = await env.step('search[usb charger]');
    expect(step).toMatchObject({ truncated: false, observation: { text: 'results' } });
  });

  it('refuses inadmissible actions without asking the model', async () => {
    const llm = new MockLlm({ answers: [] });
    const env = synthetic(new LlmExperienceModel({ llm }));
    const { observation } = await env.reset({ task: (offline[0] as Trajectory).task });
    const step = await env.step('click[Buy Now]');
    expect(step).toMatchObject({ reward: 0, truncated: false, observation });
    expect(step.info.invalidAction).toBeDefined();
    expect(llm.requests).toHaveLength(0);
  });

  it('starts webshop episodes from the search-page template once a few starts agree', async () => {
    const llm = echoLlm();
    const env = synthetic(new LlmExperienceModel({ llm }));
    const instructions = [
      'i need blue socks',
      'a red kettle',
      'green tea under 10 dollars',
      'a usb hub',
    ];
    const calls: number[] = [];
    for (const [i, instruction] of instructions.entries()) {
      const task: Task = { id: `generated-${i}`, env: 'webshop', instruction, origin: 'generated' };
      const { observation } = await env.reset({ task });
      expect(observation).toEqual({
        text: `WebShop\nInstruction:\n${instruction}\n[Search]`,
        instruction,
        actions: ['search[<query>]'],
      });
      calls.push(llm.requests.length);
    }
    // The LLM writes the first starts at most; from then on the learnt template does.
    expect(calls.at(-1)).toBe(calls.at(-2));
    expect(calls.at(-1)).toBeLessThan(instructions.length);
  });

  runEnvConformance(
    {
      name: 'synthetic webshop (LLM model, echoing mock)',
      makeEnv: () => new TimeLimit(synthetic(new LlmExperienceModel({ llm: echoLlm() })), 15),
      invalidAction: 'click[Buy Now]',
    },
    { describe, it },
  );
});

/**
 * A stand-in LLM that answers every step with the current state unchanged (read back from the
 * prompt) and ends the episode on a purchase: deterministic, as the conformance suite needs.
 */
function echoLlm(): MockLlm {
  return new MockLlm({
    answers: (request) => {
      const user = request.messages[1]?.content ?? '';
      if (request.schemaName === 'initial_state') {
        const instruction = /## Task\n(.*)\n/.exec(user)?.[1];
        return {
          reasoning: 'The shop starts on its search page.',
          state: {
            text: `WebShop\nInstruction:\n${instruction}\n[Search]`,
            actions: ['search[<query>]'],
          },
        };
      }
      const action = /## Action\n(.*)\n/.exec(user)?.[1];
      if (action === 'click[Buy Now]')
        return answer({ text: 'Thank you for shopping with us!', actions: [] }, 0.5, true);
      const state = /## Current state\n([\s\S]*)\nAdmissible actions: (.*)\n\n## Action/.exec(user);
      return answer({
        text: state?.[1] ?? '',
        actions: JSON.parse(state?.[2] ?? '[]') as string[],
      });
    },
  });
}
