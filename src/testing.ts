/**
 * Test doubles for code built on dreamgym: a scripted LLM, a deterministic embedder, fake
 * OpenAI-compatible and AgentGym servers, a tiny trainable env, and the Env conformance suite,
 * which takes your test runner's `describe` and `it`.
 *
 * @packageDocumentation
 */
export {
  runTaskPoolConformance,
  type TaskPoolConformanceOptions,
} from './curriculum/conformance.ts';
export { MockEmbedder, type MockEmbedderOptions } from './embed/mock-embedder.ts';
export {
  FAKE_ALFWORLD_GAMES,
  type FakeAlfWorldOptions,
  type FakeAlfWorldServer,
  startFakeAlfWorldServer,
} from './envs/agentgym/testing/fake-alfworld-server.ts';
export {
  type FakeGenericOptions,
  type FakeGenericServer,
  startFakeGenericServer,
} from './envs/agentgym/testing/fake-generic-server.ts';
export {
  FAKE_WEBSHOP_GOALS,
  type FakeWebShopOptions,
  type FakeWebShopServer,
  startFakeWebShopServer,
} from './envs/agentgym/testing/fake-webshop-server.ts';
export type { Faults, RecordedCall } from './envs/agentgym/testing/serve.ts';
export { type ConformanceOptions, runEnvConformance, type TestRunner } from './envs/conformance.ts';
export { type MockAnswer, MockLlm, type MockLlmOptions } from './llm/mock-llm.ts';
export {
  type FakeChatRequest,
  type FakeFault,
  FakeOpenAiServer,
  type FakeOpenAiServerOptions,
  type RecordedRequest,
} from './llm/testing/fake-openai-server.ts';
export { type BufferConformanceOptions, runReplayBufferConformance } from './replay/conformance.ts';
export { PickBanditEnv } from './rl/testing/bandit-env.ts';
