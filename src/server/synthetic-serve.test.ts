/**
 * `dreamgym serve --env synthetic:webshop --db PATH`: a remote trainer (our AgentGym client here)
 * drives DreamGym's synthetic env over HTTP, and what it plays lands in the buffer as synthetic.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteTaskPool } from '../curriculum/sqlite-task-pool.ts';
import { AgentGymWebShopEnv } from '../envs/agentgym/webshop-client.ts';
import { runEnvConformance } from '../envs/conformance.ts';
import { TimeLimit } from '../envs/wrappers/time-limit.ts';
import { type FakeChatRequest, FakeOpenAiServer } from '../llm/testing/fake-openai-server.ts';
import { exampleOf } from '../llm/testing/schema-example.ts';
import { SqliteReplayBuffer } from '../replay/sqlite-buffer.ts';
import { webshopTrajectories } from '../replay/testing/fixtures.ts';
import { type ServedEnv, serveEnv } from './serve-env.ts';

const db = join(mkdtempSync(join(tmpdir(), 'dreamgym-synthetic-serve-')), 'buffer.db');
const splits = { train: { start: 0, end: 500 }, test: { start: 500, end: 600 } };
let served: ServedEnv;

beforeAll(async () => {
  const buffer = SqliteReplayBuffer.open({ path: db });
  await buffer.add(await webshopTrajectories(80));
  await buffer.close();
  served = await serveEnv({ env: 'synthetic:webshop', db, port: 0 });
});
afterAll(async () => {
  await served?.close();
});

runEnvConformance(
  {
    name: 'AgentGymWebShopEnv against dreamgym serve --env synthetic:webshop',
    makeEnv: () => new TimeLimit(new AgentGymWebShopEnv({ url: served.url, splits }), 15),
  },
  { describe, it },
);

describe('serving the synthetic env', () => {
  it('writes the episodes remote clients play back to the buffer as synthetic', async () => {
    const env = new TimeLimit(new AgentGymWebShopEnv({ url: served.url, splits }), 15);
    await env.reset({ seed: 2 });
    const results = await env.step('search[red shoes]');
    const item = results.observation.actions?.find((a) => /^click\[b0/i.test(a));
    expect(item).toBeDefined();
    await env.step(item as string);
    const bought = await env.step('click[buy now]');
    expect(bought.info.invalidAction).toBeUndefined();
    expect(bought.terminated).toBe(true);
    await env.close();
    // Stored in the background, so that the last step does not wait for the buffer.
    const buffer = SqliteReplayBuffer.open({ path: db, create: false });
    const stored = async () => (await buffer.stats()).byEnv.webshop?.synthetic?.trajectories ?? 0;
    for (let waited = 0; (await stored()) === 0 && waited < 5000; waited += 50) await sleep(50);
    expect(await stored()).toBeGreaterThan(0);
    await buffer.close();
  });

  it('with writeBack false, leaves the buffer as it was', async () => {
    const own = join(mkdtempSync(join(tmpdir(), 'dreamgym-synthetic-serve-')), 'buffer.db');
    const buffer = SqliteReplayBuffer.open({ path: own });
    await buffer.add(await webshopTrajectories(20));
    await buffer.close();
    const quiet = await serveEnv({
      env: 'synthetic:webshop',
      db: own,
      port: 0,
      maxSteps: 2,
      writeBack: false,
    });
    const env = new TimeLimit(new AgentGymWebShopEnv({ url: quiet.url, splits }), 15);
    await env.reset({ seed: 1 });
    await env.step('search[red shoes]');
    const last = await env.step('click[back to search]'); // the server's step limit ends it
    expect(last.terminated || last.truncated).toBe(true);
    await env.close();
    await quiet.close(); // waits for what was queued for the buffer
    const after = SqliteReplayBuffer.open({ path: own, create: false });
    expect((await after.stats()).byEnv.webshop?.synthetic).toBeUndefined();
    expect((await after.stats()).trajectories).toBe(20);
    await after.close();
  });

  it('gives task-less resets the curriculum’s tasks in groups and files their rewards', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dreamgym-synthetic-serve-'));
    const tasksPath = join(dir, 'tasks.db');
    const fed = await serveEnv({
      env: 'synthetic:webshop',
      db,
      port: 0,
      maxSteps: 1,
      writeBack: false,
      curriculum: { mode: 'variance', tasksPath, groupSize: 2, batchTasks: 2 },
    });
    const post = async (path: string, body: object) =>
      (await fetch(`${fed.url}${path}`, { method: 'POST', body: JSON.stringify(body) })).json();
    const instructions: string[] = [];
    for (let i = 0; i < 3; i++) {
      const id = (await post('/create', {})) as number;
      const [page] = (await post('/reset', { env_idx: id })) as [string];
      instructions.push(/Instruction:\s*\n?(.*)/.exec(page)?.[1] ?? page);
      const step = (await post('/step', { env_idx: id, action: 'search[anything]' })) as {
        done: boolean;
      };
      expect(step.done).toBe(true); // the one-step limit ends every episode
      await post('/close', { env_idx: id });
    }
    expect(instructions[1]).toBe(instructions[0]);
    expect(instructions[2]).not.toBe(instructions[0]);
    const metrics = prometheus(await (await fetch(`${fed.url}/metrics`)).text());
    expect(metrics.get('dreamgym_steps_total')).toBe(3);
    expect(metrics.get('dreamgym_episodes_total{end="time-limit"}')).toBe(3);
    expect(metrics.get('dreamgym_step_seconds_count')).toBe(3);
    expect(metrics.get('dreamgym_sessions_open')).toBe(0);
    expect(metrics.get('dreamgym_buffer_transitions{provenance="real-offline"}')).toBeGreaterThan(
      0,
    );
    expect(metrics.get('dreamgym_curriculum_pool_size')).toBeGreaterThan(0);
    await fed.close();
    const pool = SqliteTaskPool.open({ path: tasksPath });
    const groups = await pool.groups(0);
    expect(groups.map((g) => g.attempts).sort()).toEqual([1, 2]);
    await pool.close();
  });

  it('serves the LLM experience model: server errors retried, broken answers end episodes as model errors', async () => {
    const llm = await FakeOpenAiServer.start();
    const served = await serveEnv({
      env: 'synthetic:webshop',
      db,
      port: 0,
      writeBack: false,
      llm: { url: llm.url, model: 'fake-model', historyWindow: 2 },
      k: 2,
    });
    try {
      const post = async (path: string, body: object) =>
        (
          await fetch(`${served.url}${path}`, { method: 'POST', body: JSON.stringify(body) })
        ).json();
      const id = (await post('/create', {})) as number;
      llm.inject({ kind: 'status', status: 500 }); // the reset's first call: retried
      await post('/reset', { env_idx: id, session_id: 3 });
      const ok = (await post('/step', { env_idx: id, action: 'search[red mug]' })) as {
        done: boolean;
        info: Record<string, unknown>;
      };
      expect(ok.info.truncatedBy).toBeUndefined();
      expect(typeof ok.info.reasoning).toBe('string'); // the model's reasoning, per step
      const asked = llm.posts('chat/completions').at(-1)?.body as FakeChatRequest;
      expect(JSON.stringify(asked.messages)).toContain('search[red mug]');
      // Answers cut off mid-JSON however often it asks: the step ends the episode, truncated.
      llm.inject(...Array.from({ length: 8 }, () => ({ kind: 'truncated' as const })));
      const [page] = (await post('/reset', { env_idx: id, session_id: 4 })) as [string];
      expect(page.length).toBeGreaterThan(0);
      const broken = (await post('/step', { env_idx: id, action: 'search[blue lamp]' })) as {
        done: boolean;
        info: Record<string, unknown>;
      };
      expect(broken).toMatchObject({ done: true, info: { truncatedBy: 'model-error' } });
      expect((await fetch(`${served.url}/`)).status).toBe(200); // still serving
      const metrics = prometheus(await (await fetch(`${served.url}/metrics`)).text());
      expect(metrics.get('dreamgym_episodes_total{end="model-error"}')).toBe(1);
      expect(metrics.get('dreamgym_llm_failures')).toBeGreaterThanOrEqual(1);
      expect(metrics.get('dreamgym_llm_retries')).toBeGreaterThanOrEqual(1);
      expect(metrics.get('dreamgym_llm_calls')).toBeGreaterThanOrEqual(2);
    } finally {
      await served.close();
      await llm.close();
    }
  }, 60_000);

  it('with the LLM experience model, the curriculum’s variations come from the same LLM', async () => {
    const written = 'I need a teal ceramic lamp written by the fake LLM, under 40 dollars';
    const llm = await FakeOpenAiServer.start({
      reply: (request) => {
        const schema = request.response_format?.json_schema;
        if (schema?.name === 'task_variations')
          return JSON.stringify({ tasks: [{ instruction: written }] });
        const example = (schema ? exampleOf(schema.schema) : {}) as {
          state?: { actions?: string[] };
        };
        // A generated task has no real start to copy: the model writes it, actions listed.
        if (schema?.name === 'initial_state' && example.state)
          example.state.actions = ['search[lamp]'];
        return JSON.stringify(example);
      },
    });
    const dir = mkdtempSync(join(tmpdir(), 'dreamgym-synthetic-serve-'));
    const fed = await serveEnv({
      env: 'synthetic:webshop',
      db,
      port: 0,
      maxSteps: 1,
      writeBack: false,
      llm: { url: llm.url, model: 'fake-model' },
      curriculum: {
        mode: 'random',
        tasksPath: join(dir, 'tasks.db'),
        batchTasks: 2,
        generatedShare: 0.5,
      },
    });
    try {
      const post = async (path: string, body: object) =>
        (await fetch(`${fed.url}${path}`, { method: 'POST', body: JSON.stringify(body) })).json();
      /** Per episode: what the experience model was asked about it (its task included). */
      const played: string[] = [];
      const experience = (r: { body: unknown }) =>
        (r.body as FakeChatRequest).response_format?.json_schema?.name !== 'task_variations';
      for (let i = 0; i < 4 && !played.some((p) => p.includes(written)); i++) {
        const id = (await post('/create', {})) as number;
        const before = llm.posts('chat/completions').length;
        await post('/reset', { env_idx: id });
        await post('/step', { env_idx: id, action: 'search[lamp]' });
        await post('/close', { env_idx: id });
        const asked = llm.posts('chat/completions').slice(before).filter(experience);
        expect(asked.length).toBeGreaterThan(0);
        played.push(JSON.stringify(asked.map((r) => (r.body as FakeChatRequest).messages)));
      }
      expect(played.some((p) => p.includes(written))).toBe(true);
      const generator = llm
        .posts('chat/completions')
        .filter(
          (r) =>
            (r.body as FakeChatRequest).response_format?.json_schema?.name === 'task_variations',
        );
      expect(generator.length).toBeGreaterThan(0);
    } finally {
      await fed.close();
      await llm.close();
    }
    const pool = SqliteTaskPool.open({ path: join(dir, 'tasks.db') });
    expect(
      pool.tasks().some((e) => e.task.instruction === written && e.task.origin === 'generated'),
    ).toBe(true);
    await pool.close();
  }, 60_000);

  it('refuses an experience model for a real env, and an LLM without a server or file', async () => {
    await expect(
      serveEnv({ env: 'webshop', port: 0, llm: { url: 'http://x/v1', model: 'm' } }),
    ).rejects.toThrow(/synthetic envs only; webshop is a real env/);
    await expect(
      serveEnv({ env: 'synthetic:webshop', db, port: 0, llm: { model: 'm' } }),
    ).rejects.toThrow(/--llm-url and --llm-model .* or --gguf FILE/);
  });

  it('needs a buffer with real data, and says so', async () => {
    await expect(serveEnv({ env: 'synthetic:webshop', port: 0 })).rejects.toThrow(/--db PATH/);
  });
});

/**
 * Prometheus' text format, checked line by line (HELP and TYPE comments, then samples
 * `name{labels} value`), as a map from `name{labels}` to value.
 */
function prometheus(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      expect(line).toMatch(
        /^# (HELP [a-z_:][\w:]* .+|TYPE [a-z_:][\w:]* (counter|gauge|histogram|summary|untyped))$/,
      );
      continue;
    }
    const match =
      /^([a-zA-Z_:][\w:]*(?:\{(?:[a-zA-Z_]\w*="[^"]*",?)*\})?) (-?[\d.]+(?:e[-+]?\d+)?|NaN|[+-]Inf)$/.exec(
        line,
      );
    expect(match, line).not.toBeNull();
    samples.set(match?.[1] as string, Number(match?.[2]));
  }
  return samples;
}
