import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../../cli/testing/run-cli-in-process.ts';
import { type FakeChatRequest, FakeOpenAiServer } from '../../llm/testing/fake-openai-server.ts';
import { promptedActions, promptedTask } from '../../policy/llm/testing.ts';
import { readRlEpisodes } from './rl-episode-file.ts';

const dreamgym = (args: string[]) => runCliInProcess(args);

/** Searches for the instruction and buys the result whose position the prompt's length picks. */
function shopper(request: FakeChatRequest): string {
  const actions = promptedActions(request.messages);
  const results = actions.filter((a) => /^click\[B0/.test(a));
  const choice = actions.includes('search[<query>]')
    ? `search[${promptedTask(request.messages)}]`
    : actions.includes('click[Buy Now]')
      ? 'click[Buy Now]'
      : results[JSON.stringify(request).length % results.length];
  return `Thought: go on.\nAction: ${choice}`;
}

describe('dreamgym export-rl', () => {
  let server: FakeOpenAiServer;
  const dir = mkdtempSync(join(tmpdir(), 'dreamgym-export-rl-'));
  beforeAll(async () => {
    server = await FakeOpenAiServer.start({ models: ['agent'], reply: shopper });
  });
  afterAll(async () => {
    await server.close();
  });
  const rollout = (out: string, ...extra: string[]) =>
    dreamgym([
      'export-rl',
      '--env',
      'webshop',
      '--policy',
      'llm',
      '--llm-url',
      server.url,
      '--llm-model',
      'agent',
      '--tasks',
      '2',
      '--group-size',
      '3',
      '--out',
      out,
      ...extra,
    ]);

  it('rolls out an LLM policy in groups and writes one line per episode, whatever the concurrency', async () => {
    const [a, b] = [join(dir, 'a.jsonl'), join(dir, 'b.jsonl')];
    const trajectories = join(dir, 'trajectories.jsonl');
    const first = await rollout(a, '--concurrency', '3', '--save-trajectories', trajectories);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/episodes\s+6 in 2 groups/);
    expect(first.stdout).toContain(`wrote         ${a}`);
    const episodes = await readRlEpisodes(a);
    expect(episodes.map((e) => e.episode_id.replace(/^.*#/, ''))).toEqual([
      '0@0',
      '1@0',
      '2@0',
      '0@0',
      '1@0',
      '2@0',
    ]);
    expect(episodes[0]?.policy_id).toBe('llm(openai:agent, t=1)');
    expect((await rollout(b)).code).toBe(0);
    expect(readFileSync(b, 'utf8')).toBe(readFileSync(a, 'utf8'));

    const again = join(dir, 'again.jsonl');
    const fromFile = await dreamgym(['export-rl', '--data', trajectories, '--out', again]);
    expect(fromFile.code).toBe(0);
    expect(readFileSync(again, 'utf8')).toBe(readFileSync(a, 'utf8'));
  });

  it('says what to pass when the input is missing or mixed up', async () => {
    const out = join(dir, 'never.jsonl');
    const nothing = await dreamgym(['export-rl', '--out', out]);
    expect(nothing.code).not.toBe(0);
    expect(nothing.stderr).toContain('say what to export: --data FILE');
    const mixed = await dreamgym([
      'export-rl',
      '--data',
      'x.jsonl',
      '--group-size',
      '4',
      '--out',
      out,
    ]);
    expect(mixed.stderr).toContain('--group-size applies only when rolling out with --env');
    const singles = await dreamgym([
      'export-rl',
      '--env',
      'webshop',
      '--policy',
      'random',
      '--group-size',
      '1',
      '--out',
      out,
    ]);
    expect(singles.stderr).toMatch(/--group-size.*expected an integer from 2/);
  });
});
