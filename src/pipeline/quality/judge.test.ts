import { describe, expect, it } from 'vitest';
import { type Transition, transitions } from '../../core/types.ts';
import { LlmExperienceModel } from '../../experience/llm/llm-model.ts';
import { llmFreeModel } from '../../experience/llm-free.ts';
import { LlmOutputError } from '../../llm/errors.ts';
import { MockLlm } from '../../llm/mock-llm.ts';
import { toJsonSchema } from '../../llm/structured.ts';
import { makePolicy } from '../../policy/registry.ts';
import type { RetrievedTransition } from '../../replay/stored-transition.ts';
import { envSetup, offlineData } from '../experiment.ts';
import { CRITERIA, JudgeAnswer, judgeGroup, judgeMessages, RUBRIC } from './judge.ts';
import { runQuality } from './quality.ts';

const answer = (score: number) =>
  Object.fromEntries(CRITERIA.map((c) => [c, { reason: `${c} looks fine`, score }]));

describe('the LLM judge', () => {
  const setup = envSetup('webshop', { trainTasks: 24 });

  it('shows the rubric, the task, the episodes and real transitions; asks for a 1–5 score per criterion', async () => {
    const offline = await offlineData(setup, { episodes: 4, epsilon: 0, seed: 1 });
    const [first] = offline;
    if (!first) throw new Error('no offline episode');
    const reference: RetrievedTransition = {
      ...(transitions(first)[0] as Transition),
      id: 1,
      trajectoryId: first.id,
      provenance: 'real-offline',
      policyId: first.policyId,
      similarity: 0.9,
    };
    const messages = judgeMessages(offline.slice(1, 3), [reference]);
    const [system, user] = messages.map((m) => m.content) as [string, string];
    for (const c of CRITERIA) expect(system).toContain(RUBRIC[c]);
    expect(user).toContain(offline[1]?.task.instruction ?? 'missing');
    expect(user).toContain('### Episode 2');
    expect(user).toContain(`Action: ${reference.action}`);
    const schema = toJsonSchema(JudgeAnswer) as {
      properties: Record<string, { properties: { score: { minimum: number; maximum: number } } }>;
    };
    expect(Object.keys(schema.properties)).toEqual([...CRITERIA]);
    expect(schema.properties.hallucination?.properties.score).toMatchObject({
      minimum: 1,
      maximum: 5,
    });
    const llm = new MockLlm({ answers: [answer(4)] });
    const scored = await judgeGroup(llm, offline.slice(1, 3), [reference]);
    expect(scored.consistency).toEqual({ reason: 'consistency looks fine', score: 4 });
    expect(llm.requests[0]?.schema).toBe(JudgeAnswer);
  });

  it('refuses a score outside 1–5', async () => {
    const offline = await offlineData(setup, { episodes: 1, epsilon: 0, seed: 1 });
    const llm = new MockLlm({ answers: [answer(7)] });
    await expect(judgeGroup(llm, offline, [])).rejects.toBeInstanceOf(LlmOutputError);
  });

  it('runQuality averages the judge over groups and counts the groups it could not score', async () => {
    const offline = await offlineData(setup, { episodes: 20, epsilon: 0.3, seed: 1 });
    // Per row, the first group scores 5 and the second 3, except one unusable answer for the real env.
    const llm = new MockLlm({
      answers: (_, i) => (i === 1 ? 'not json' : answer(i % 2 === 0 ? 5 : 3)),
    });
    const result = await runQuality({
      setup,
      offline,
      tasks: setup.trainTasks.slice(20, 22),
      groupSize: 2,
      policy: makePolicy('expert', { env: 'webshop', epsilon: 0.3 }),
      model: (buffer) => llmFreeModel('webshop', buffer),
      k: 4,
      seed: 0,
      judge: { llm, groups: 2 },
    });
    expect(result.rows.map((r) => r.name)).toEqual([
      'real env (reference)',
      'DreamGym (full)',
      '− history',
      '− retrieval',
    ]);
    expect(llm.requests).toHaveLength(8);
    expect(result.rows[0]?.judge).toMatchObject({
      failures: 1,
      scores: { diversity: { mean: 5, n: 1 } },
    });
    expect(result.rows[1]?.judge?.scores.consistency.mean).toBe(4);
    expect(result.rows[0]?.proxies.consistency.mean).toBe(1);
    expect(result.judge?.llm).toBe('mock');
  }, 30_000);

  it('adds the − reasoning row for an LLM model, whose prompt then asks for no reasoning', async () => {
    const offline = await offlineData(setup, { episodes: 20, epsilon: 0.3, seed: 1 });
    const done = {
      next_state: {
        text: 'Thank you for shopping with us!\nYour score (min 0.0, max 1.0): 0.5000',
        actions: [],
      },
      reward: 0.5,
      terminated: true,
    };
    const llm = new MockLlm({
      answers: (request) =>
        request.schemaName === 'initial_state'
          ? {
              reasoning: 'a search page',
              state: { text: 'WebShop\n[Search]', actions: ['search[<query>]'] },
            }
          : request.messages[0]?.content.includes('Reason step by step')
            ? { reasoning: 'buying ends the episode', ...done }
            : done,
    });
    const options = {
      setup,
      offline,
      tasks: setup.trainTasks.slice(20, 22),
      groupSize: 2,
      policy: makePolicy('expert', { env: 'webshop', epsilon: 0.3 }),
      model: () => new LlmExperienceModel({ llm }),
      k: 2,
      seed: 0,
    };
    const result = await runQuality({
      ...options,
      withoutReasoning: () => new LlmExperienceModel({ llm, reasoning: false }),
    });
    expect(result.rows.map((r) => r.name).at(-1)).toBe('− reasoning');
    expect(result.reasoningAblation).toBe('measured (llm/mock/no-reasoning)');
    const direct = llm.requests.filter(
      (r) => !r.messages[0]?.content.includes('Reason step by step'),
    );
    // One synthetic step per episode (the first action ends it), 4 episodes in the − reasoning row.
    expect(direct).toHaveLength(4);
    const plain = await runQuality({
      ...options,
      model: (buffer) => llmFreeModel('webshop', buffer),
    });
    expect(plain.rows).toHaveLength(4);
    expect(plain.reasoningAblation).toMatch(/^does not apply: llm-free\/webshop does not reason/);
  }, 30_000);
});
