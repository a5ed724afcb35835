// Use dreamgym as a library: offline real episodes → replay buffer → a synthetic env over an
// experience model (LLM-free, then an LLM one) → steps. Run by `npm run test:package` from the
// installed tarball, so it compiles against the published types.
import assert from 'node:assert/strict';
import { MockLanguageModelV3 } from 'ai/test';
import {
  AiSdkClient,
  collect,
  envEntry,
  LlmExperienceModel,
  llmFreeModel,
  ReplayBuffer,
  SyntheticEnv,
  TimeLimit,
} from 'dreamgym';
import { MockLlm } from 'dreamgym/testing';
import { makeWebShop, WebShopExpert } from 'dreamgym/webshop';
import { z } from 'zod';

// 1. Offline real experience: a noisy scripted expert in the real webshop env.
const real = makeWebShop({ split: 'train' });
const tasks = envEntry('webshop').tasks({}).tasks('train', 30);
const offline = await collect({
  env: real,
  policy: new WebShopExpert({ epsilon: 0.3 }),
  tasks,
  episodes: 30,
  seed: 1,
  provenance: 'real-offline',
});
await real.close();

// 2. The replay buffer (in memory here; `ReplayBuffer.open({ path })` for a file).
const buffer = await ReplayBuffer.open();
await buffer.add(offline);

// 3. A synthetic env over the LLM-free experience model learnt from the buffer.
const synthetic = new TimeLimit(
  new SyntheticEnv({ env: 'webshop', model: await llmFreeModel('webshop', buffer), buffer }),
  15,
);
const { observation } = await synthetic.reset({ task: tasks[0] });
// The first page offers `search[<query>]`: search for the instruction's first words.
const first = `search[${observation.instruction.split(/\s+/).slice(0, 5).join(' ')}]`;
const step = await synthetic.step(first);
assert.equal(typeof step.reward, 'number');
assert.ok(step.observation.text.length > 0);
console.log(`LLM-free synthetic step: ${first} → ${step.observation.text.slice(0, 60)}…`);

// 4. The LLM experience model, here over a scripted MockLlm (any LlmClient works).
const llm = new MockLlm({
  answers: () => ({
    reasoning: 'A search leads to a results page.',
    next_state: {
      text: '[Back to Search]\nPage 1 (Total results: 0)',
      actions: ['click[Back to Search]'],
    },
    reward: 0,
    terminated: false,
  }),
});
const dream = new SyntheticEnv({
  env: 'webshop',
  model: new LlmExperienceModel({ llm }),
  buffer,
  k: 2,
});
await dream.reset({ task: tasks[1] });
const next = await dream.step('search[stapler]');
assert.equal(next.observation.text, '[Back to Search]\nPage 1 (Total results: 0)');
assert.equal(llm.requests.length > 0, true);
console.log(`LLM synthetic step: ${llm.requests.length} LLM call(s), next state as scripted`);

// 5. Any Vercel AI SDK model as the LLM (here the SDK's own mock model; `ai` is a peer dependency).
const aiModel = new MockLanguageModelV3({
  doGenerate: async () => ({
    content: [{ type: 'text', text: '{"greeting": "hello"}' }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage: {
      inputTokens: { total: 3, noCache: 3, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 4, text: 4, reasoning: undefined },
    },
    warnings: [],
  }),
});
const sdk = new AiSdkClient({ model: aiModel });
const hello = await sdk.chat({
  messages: [{ role: 'user', content: 'Say hello as JSON.' }],
  schema: z.object({ greeting: z.string() }),
});
assert.deepEqual(hello.json, { greeting: 'hello' });
console.log(`AI SDK client: ${sdk.id} answered ${JSON.stringify(hello.json)}`);

await synthetic.close();
await dream.close();
await buffer.close();
