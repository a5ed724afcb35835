import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../../cli/testing/run-cli-in-process.ts';
import { readTrajectories } from '../../data/trajectory-file.ts';
import { type FakeChatRequest, FakeOpenAiServer } from '../../llm/testing/fake-openai-server.ts';
import { promptedActions, promptedTask } from './testing.ts';

const dreamgym = (args: string[]) => runCliInProcess(args);

/** Searches for the instruction, opens the first result and buys it. */
function shopper(request: FakeChatRequest): string {
  const actions = promptedActions(request.messages);
  const choice = actions.includes('search[<query>]')
    ? `search[${promptedTask(request.messages)}]`
    : (actions.find((a) => a === 'click[Buy Now]') ?? actions.find((a) => /^click\[B0/.test(a)));
  return `Thought: go on.\nAction: ${choice}`;
}

describe('--policy llm in eval and collect', () => {
  let server: FakeOpenAiServer;
  beforeAll(async () => {
    server = await FakeOpenAiServer.start({ models: ['agent'], reply: shopper });
  });
  afterAll(async () => {
    await server.close();
  });
  const llmFlags = () => ['--policy', 'llm', '--llm-url', server.url, '--llm-model', 'agent'];

  it('evaluates an LLM served over the OpenAI API, greedily', async () => {
    const run = await dreamgym([
      'eval',
      '--env',
      'webshop',
      ...llmFlags(),
      '--episodes',
      '2',
      '--json',
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({
      policy: 'llm(openai:agent, t=0)',
      episodes: 2,
      policyErrors: 0,
    });
    expect(result.meanSteps).toBe(3);
    const body = server.posts('chat/completions').at(-1)?.body as FakeChatRequest;
    expect(body).toMatchObject({ model: 'agent', temperature: 0 });
  });

  it('collects trajectories with the thoughts as reasoning', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'dreamgym-llm-')), 'llm.jsonl');
    const run = await dreamgym([
      'collect',
      '--env',
      'webshop',
      ...llmFlags(),
      '--episodes',
      '2',
      '--out',
      out,
    ]);
    expect(run.code).toBe(0);
    const trajectories = await readTrajectories(out);
    expect(trajectories).toHaveLength(2);
    expect(trajectories[0]?.policyId).toBe('llm(openai:agent, t=1)');
    expect(trajectories[0]?.steps.map((s) => s.reasoning)).toEqual(['go on.', 'go on.', 'go on.']);
  });

  it('names the missing or misplaced flags', async () => {
    const noModel = await dreamgym(['eval', '--env', 'webshop', '--policy', 'llm']);
    expect(noModel.code).not.toBe(0);
    expect(noModel.stderr).toContain('--policy llm needs --llm-url URL --llm-model NAME');
    const misplaced = await dreamgym([
      'eval',
      '--env',
      'webshop',
      '--policy',
      'random',
      '--llm-url',
      server.url,
    ]);
    expect(misplaced.stderr).toContain('--llm-url applies only to --policy llm, not "random"');
  });
});
