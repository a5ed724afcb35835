import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataFormatError } from '../../core/errors.ts';
import { Rng } from '../../core/rng.ts';
import type { Step, Task, Trajectory } from '../../core/types.ts';
import { ENVS } from '../../envs/registry.ts';
import type { LlmRequest } from '../../llm/client.ts';
import { MockLlm } from '../../llm/mock-llm.ts';
import { LlmPolicy } from '../../policy/llm/llm-policy.ts';
import { promptedActions, promptedTask } from '../../policy/llm/testing.ts';
import { rollout } from '../rollout.ts';
import { encodeRlEpisode, type RlEpisode } from './rl-episode.ts';
import { readRlEpisodes, writeRlEpisodes } from './rl-episode-file.ts';
import { RlExportError, toRlEpisodes } from './to-rl-episodes.ts';

/** A model that searches for the instruction and buys a result chosen by the request's seed. */
function shopper(request: LlmRequest<unknown>): string {
  const actions = promptedActions(request.messages);
  const results = actions.filter((a) => /^click\[B0/.test(a));
  const choice = actions.includes('search[<query>]')
    ? `search[${promptedTask(request.messages)}]`
    : actions.includes('click[Buy Now]')
      ? 'click[Buy Now]'
      : (new Rng(request.seed ?? 0).pick(results) ?? 'click[Back to Search]');
  return `Thought: next.\nAction: ${choice}`;
}

async function llmRollouts(seed = 0) {
  const webshop = ENVS.webshop;
  if (!webshop) throw new Error('webshop is not registered');
  const llm = new MockLlm({ answers: shopper });
  const trajectories = (
    await rollout({
      makeEnv: () => webshop.make({ split: 'train' }),
      policy: new LlmPolicy({ llm }),
      tasks: webshop.tasks({ split: 'train' }).tasks('train', 3),
      groupSize: 4,
      seed,
      provenance: 'real-online',
    })
  ).map((e) => e.trajectory);
  return { trajectories, llm };
}

const task = (id: string): Task => ({
  id,
  env: 'webshop',
  instruction: `task ${id}`,
  origin: 'seed',
});
const observation = { text: 'page', instruction: 'i', actions: ['click[Buy Now]'] };
const step = (reward: number, end: Partial<Step> = { terminated: true }): Step => ({
  action: 'click[Buy Now]',
  observation,
  reward,
  terminated: false,
  truncated: false,
  ...end,
});
const trajectory = (id: string, taskId: string, steps: Step[]): Trajectory => ({
  id,
  env: 'webshop',
  task: task(taskId),
  initial: observation,
  steps,
  provenance: 'real-offline',
  policyId: 'test',
  startedAt: '2025-01-01T00:00:00.000Z',
  endedAt: '2025-01-01T00:00:01.000Z',
});

describe('export-rl from LLM policy rollouts', () => {
  it('writes each episode as the policy’s own prompts and answers, assistant turns trainable', async () => {
    const { trajectories, llm } = await llmRollouts();
    const { episodes } = toRlEpisodes(trajectories);
    expect(episodes).toHaveLength(12);
    const exportedPrompts = episodes.flatMap((e) => e.messages.filter((m) => m.role === 'user'));
    expect(exportedPrompts.map((m) => m.content)).toEqual(
      llm.requests.map((r) => r.messages[1]?.content),
    );
    for (const episode of episodes) {
      const roles = episode.messages.map((m) => m.role);
      expect(roles[0]).toBe('system');
      roles.slice(1).forEach((role, i) => {
        expect(role).toBe(i % 2 === 0 ? 'user' : 'assistant');
      });
      expect(episode.messages.every((m) => m.trainable === (m.role === 'assistant'))).toBe(true);
      expect(episode.rewards).toHaveLength((episode.messages.length - 1) / 2);
      expect(episode.messages.at(-1)?.content).toBe('Thought: next.\nAction: click[Buy Now]');
    }
  });

  it('gives GRPO advantages that sum to 0 within each group and order episodes by reward', async () => {
    const { trajectories } = await llmRollouts();
    const { episodes, groups, informativeGroups } = toRlEpisodes(trajectories);
    expect(groups).toBe(3);
    expect(informativeGroups).toBeGreaterThan(0);
    for (const id of new Set(episodes.map((e) => e.group_id))) {
      const members = episodes.filter((e) => e.group_id === id);
      expect(members).toHaveLength(4);
      expect(members.reduce((s, e) => s + e.advantage, 0)).toBeCloseTo(0, 9);
      const ranked = [...members].sort((a, b) => a.total_reward - b.total_reward);
      for (let i = 1; i < ranked.length; i++)
        expect(ranked[i]?.advantage).toBeGreaterThanOrEqual(ranked[i - 1]?.advantage as number);
    }
  });

  it('round-trips through JSONL, and the same seed writes the same file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'export-rl-'));
    const first = toRlEpisodes((await llmRollouts(7)).trajectories).episodes;
    const second = toRlEpisodes((await llmRollouts(7)).trajectories).episodes;
    await writeRlEpisodes(join(dir, 'a.jsonl'), first);
    await writeRlEpisodes(join(dir, 'b.jsonl'), second);
    expect(await readRlEpisodes(join(dir, 'a.jsonl'))).toEqual(first);
    expect(readFileSync(join(dir, 'a.jsonl'), 'utf8')).toBe(
      readFileSync(join(dir, 'b.jsonl'), 'utf8'),
    );
  });
});

describe('toRlEpisodes input checks', () => {
  it('centres advantages without scaling when normalizeStd is false', () => {
    const input = [trajectory('a', 't', [step(1)]), trajectory('b', 't', [step(0.5)])];
    const { episodes } = toRlEpisodes(input, { normalizeStd: false });
    expect(episodes.map((e) => e.advantage)).toEqual([0.25, -0.25]);
  });

  it('records why an episode was truncated', () => {
    const policyError = step(0, { truncated: true, info: { truncatedBy: 'policy-error' } });
    const { episodes } = toRlEpisodes([
      trajectory('a', 't', [step(1)]),
      trajectory('b', 't', [policyError]),
    ]);
    expect(episodes[1]).toMatchObject({ truncated: true, truncated_by: 'policy-error' });
    expect(episodes[0]?.truncated_by).toBeUndefined();
  });

  it('skips episodes without steps and warns about single-episode groups', () => {
    const { episodes, warnings } = toRlEpisodes([
      trajectory('a', 't', [step(1)]),
      trajectory('b', 't', [step(0)]),
      trajectory('c', 'u', [step(1)]),
      trajectory('d', 't', []),
    ]);
    expect(episodes.map((e) => e.episode_id)).toEqual(['a', 'b', 'c']);
    expect(episodes[2]?.advantage).toBe(0);
    expect(warnings).toEqual([
      'skipped 1 episodes without steps: they have no turn to train.',
      '1 of 2 tasks have a single episode: their advantage is 0.',
    ]);
  });

  it('refuses duplicate episodes and input with nothing to compare', () => {
    const a = trajectory('a', 't', [step(1)]);
    expect(() => toRlEpisodes([a, a])).toThrow(/"a" appears more than once/);
    expect(() => toRlEpisodes([a, trajectory('b', 'u', [step(1)])])).toThrow(RlExportError);
    expect(() => toRlEpisodes([a, trajectory('b', 'u', [step(1)])])).toThrow(/--group-size/);
  });
});

describe('rl-episode files', () => {
  const episode = (): RlEpisode =>
    toRlEpisodes([trajectory('a', 't', [step(1)]), trajectory('b', 't', [step(0)])])
      .episodes[0] as RlEpisode;

  it('names the file, line and field of a malformed line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'export-rl-'));
    const file = join(dir, 'bad.jsonl');
    const userTrainable = episode();
    (userTrainable.messages[1] as { trainable: boolean }).trainable = true;
    writeFileSync(file, `${encodeRlEpisode(episode())}\n\n${JSON.stringify(userTrainable)}\n`);
    const error = await readRlEpisodes(file).catch((e) => e);
    expect(error).toBeInstanceOf(DataFormatError);
    expect(error.message).toMatch(
      /bad\.jsonl:3: messages: message 1 \(user\) has trainable true; only assistant messages are trainable/,
    );
  });

  it('refuses to write an episode whose rewards do not match its turns', () => {
    const broken = { ...episode(), rewards: [1, 0] };
    expect(() => encodeRlEpisode(broken)).toThrow(/expected 1 \+ 2 per step/);
  });
});
