import { describe, expect, it } from 'vitest';
import type { Trajectory } from '../core/types.ts';
import { LIBRARY_STDIO_CONFIG } from '../envs/mcp/testing/library-fixtures.ts';
import { resolveEnvRef } from '../envs/registry.ts';
import { MockLlm } from '../llm/mock-llm.ts';
import { SqliteReplayBuffer } from '../replay/sqlite-buffer.ts';
import { parseRunConfig } from './config.ts';
import { makeExperienceModel } from './experience-model.ts';

/**
 * A real episode of the library whose states never list the tools, so that what the prompt says
 * of them can only come from the server.
 */
function libraryEpisode(family: string): Trajectory {
  const task = {
    id: `${family}/who-wrote`,
    env: family,
    instruction: 'Who wrote Middlemarch?',
    origin: 'seed' as const,
  };
  const actions = ['search_catalog({"query": "<query>"})', 'answer[<text>]'];
  const at = '2026-11-27T00:00:00.000Z';
  return {
    id: 'library-0',
    env: family,
    task,
    initial: { text: 'The library desk is open.', instruction: task.instruction, actions },
    steps: [
      {
        action: 'search_catalog({"query": "middlemarch"})',
        observation: {
          text: '[{"id": "B-1", "title": "Middlemarch", "author": "George Eliot"}]',
          instruction: task.instruction,
          actions,
        },
        reward: 0,
        terminated: false,
        truncated: false,
        info: {},
      },
      {
        action: 'answer[George Eliot]',
        observation: {
          text: 'Answer submitted: George Eliot',
          instruction: task.instruction,
          actions: [],
        },
        reward: 1,
        terminated: true,
        truncated: false,
        info: {},
      },
    ],
    provenance: 'real-offline',
    policyId: 'librarian',
    startedAt: at,
    endedAt: at,
  };
}

describe('makeExperienceModel', () => {
  it("tells the LLM an MCP env's tools, read from its server: names, parameters, descriptions", async () => {
    const family = await resolveEnvRef(`mcp@${LIBRARY_STDIO_CONFIG}`);
    expect(family).toBe('mcp:library');
    const episode = libraryEpisode(family);
    const buffer = SqliteReplayBuffer.open();
    await buffer.add([episode]);
    const llm = new MockLlm({
      answers: [
        {
          reasoning: 'The catalog lists the book.',
          next_state: { text: '[]', actions: episode.initial.actions },
          reward: 0,
          terminated: false,
        },
      ],
    });
    // The LLM given is the mock; the config's server is never called.
    const config = parseRunConfig({
      experienceModel: { kind: 'llm', llm: { url: 'http://127.0.0.1:1/v1', model: 'm' } },
    }).experienceModel;
    const model = await makeExperienceModel(config, family, buffer, llm);
    await buffer.close();
    await model.predict({
      task: episode.task,
      history: [],
      state: episode.initial,
      action: 'list_loans({})',
      demonstrations: [],
    });
    const system = llm.requests[0]?.messages[0]?.content ?? '';
    expect(system).toContain('known from 1 recorded real episodes');
    expect(system).toContain(
      '\nTools:\n- search_catalog(query: string): Finds books whose title or author holds every word of the query.',
    );
    expect(system).toMatch(/\n- lend_book\(book_id: string, member: string\): Lends a copy/);
    expect(system).toMatch(/\n- list_loans\(member\?: string\): Lists the loans/);
    // Hidden tools (the config's and the reset tool) are not the agent's: the LLM is not told them.
    expect(system).not.toContain('add_book');
    expect(system).not.toContain('reset_library');
  }, 60_000);

  it('samples experienceModel.llm.samples predictions a step, their disagreement the uncertainty', async () => {
    const page = (text: string) => ({
      reasoning: 'r',
      next_state: { text, actions: ['click[Back to Search]'] },
      reward: 0,
      terminated: false,
    });
    const llm = new MockLlm({ answers: [page('a'), page('b'), page('a')] });
    const config = parseRunConfig({
      experienceModel: {
        kind: 'llm',
        llm: { url: 'http://127.0.0.1:1/v1', model: 'm', samples: 3 },
      },
    }).experienceModel;
    const model = await makeExperienceModel(config, 'webshop', SqliteReplayBuffer.open(), llm);
    const state = { text: 'WebShop [Search]', instruction: 'buy', actions: ['search[<query>]'] };
    const task = { id: 'w/1', env: 'webshop', instruction: 'buy', origin: 'seed' as const };
    const prediction = await model.predict({
      task,
      history: [],
      state,
      action: 'search[x]',
      demonstrations: [],
    });
    expect(llm.requests).toHaveLength(3);
    expect(prediction.nextState.text).toBe('a');
    expect(prediction.uncertainty).toBeCloseTo(1 / 3, 10);
  });
});
