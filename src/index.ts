/**
 * dreamgym: train LLM-agent policies with reinforcement learning on synthesized experience (after
 * "Scaling Agent Learning via Experience Synthesis", DreamGym, 2025).
 *
 * The root entry holds the contracts and the main classes:
 * envs and their tasks, trajectories, the replay buffer, experience models and the synthetic env,
 * policies, training, the curriculum, the LLM layer and embedders, and the whole pipeline. The
 * built-in envs have entries of their own (`dreamgym/webshop`, `dreamgym/household`,
 * `dreamgym/web`), and the test doubles live in `dreamgym/testing`. Exports are listed by source
 * path (core, curriculum, data, embed, envs, experience, llm, pipeline, policy, replay, rl).
 *
 * @packageDocumentation
 */

export {
  ConfigError,
  DataFormatError,
  DreamGymError,
  EnvClosedError,
  EnvNotResetError,
  EpisodeEndedError,
  TaskError,
} from './core/errors.ts';
export { Rng } from './core/rng.ts';
export {
  finalReward,
  isActionTemplate,
  isJudged,
  isSuccess,
  type Observation,
  type Provenance,
  type Step,
  type StepInfo,
  type Task,
  type Trajectory,
  type Transition,
  totalReward,
  transitions,
} from './core/types.ts';
export {
  Curriculum,
  type CurriculumConfig,
  type CurriculumOptions,
  DEFAULT_CURRICULUM_CONFIG,
} from './curriculum/curriculum.ts';
export {
  type CurriculumReport,
  curriculumReport,
  type PlayedShare,
} from './curriculum/curriculum-report.ts';
export type {
  GenerationRequest,
  GenerationResult,
  TaskGenerator,
} from './curriculum/generators/generator.ts';
export { offlineMutators } from './curriculum/generators/offline-mutators.ts';
export { WebTaskVariations } from './curriculum/generators/web-variations.ts';
export { type OpenTaskPoolOptions, TaskPool } from './curriculum/open-task-pool.ts';
export {
  TaskPoolConnectionError,
  TaskPoolLocationError,
  TaskPoolSchemaError,
} from './curriculum/pool-errors.ts';
export { PostgresTaskPool, type PostgresTaskPoolOptions } from './curriculum/postgres-task-pool.ts';
export type { TaskSchedule } from './curriculum/schedule.ts';
export { SqliteTaskPool, type SqliteTaskPoolOptions } from './curriculum/sqlite-task-pool.ts';
export type {
  BatchMaker,
  GroupStats,
  HandOut,
  PooledTask,
  PoolFilter,
  PoolIterationStats,
  RewardStats,
} from './curriculum/task-pool.ts';
export {
  readTrajectories,
  readTrajectoriesStream,
  TrajectoryFileNotFoundError,
  TrajectoryWriteError,
  TrajectoryWriter,
  type TrajectoryWriterOptions,
} from './data/trajectory-file.ts';
export {
  TRAJECTORY_FORMAT,
  TRAJECTORY_FORMAT_VERSION,
  TrajectoryFormatError,
  validateTrajectory,
} from './data/trajectory-format.ts';
export { readOpenAiChat } from './data/transcripts/openai-chat.ts';
export { readOtlpGenAi } from './data/transcripts/otlp.ts';
export { readOutcomes } from './data/transcripts/outcome.ts';
export { readTranscriptFile } from './data/transcripts/transcript-file.ts';
export type {
  TranscriptRead,
  TranscriptReadOptions,
} from './data/transcripts/transcript-reader.ts';
export type { Embedder } from './embed/embedder.ts';
export { HashingEmbedder, type HashingEmbedderOptions } from './embed/hashing-embedder.ts';
export { LlamaCppEmbedder, type LlamaCppEmbedderOptions } from './embed/llama-cpp-embedder.ts';
export { OpenAiEmbedder, type OpenAiEmbedderOptions } from './embed/openai-embedder.ts';
export {
  AGENTGYM_DIALECTS,
  AGENTGYM_SPLITS,
  type AgentGymDialect,
  AgentGymGenericEnv,
  type AgentGymGenericEnvOptions,
  agentgymEntry,
  GENERIC_DIALECT,
  GENERIC_SPLITS,
} from './envs/agentgym/index.ts';
export { bookingEntry } from './envs/booking/entry.ts';
export type {
  Env,
  EnvEntry,
  EnvExpert,
  EnvOptions,
  ResetInfo,
  ResetOptions,
  ResetResult,
  StepResult,
  TaskSource,
  TaskSplit,
} from './envs/env.ts';
export { keysAndDoorsEntry } from './envs/keys-and-doors/entry.ts';
export {
  formatToolCall,
  isMcpRef,
  type McpConfig,
  McpEnv,
  McpServerError,
  mcpEntry,
  parseMcpAction,
} from './envs/mcp/index.ts';
export {
  isModuleRef,
  loadModuleEntry,
  type ModuleEnvEntry,
  type ModuleRef,
} from './envs/module-entry.ts';
export {
  isOpenEnvRef,
  OPENENV_MAX_STEPS,
  OpenEnvCapacityError,
  OpenEnvConnectionError,
  OpenEnvEnv,
  type OpenEnvEnvOptions,
  OpenEnvError,
  OpenEnvProtocolError,
  OpenEnvServerError,
  openenvEntry,
  parseOpenEnvRef,
  type TransportKind,
} from './envs/openenv/index.ts';
export type { ObservationFacts, QualityLens } from './envs/quality-lens.ts';
export {
  ENVS,
  envEntry,
  loadedEnvModules,
  registerEnv,
  resolveEnvRef,
} from './envs/registry.ts';
export { supportDeskEntry } from './envs/support-desk/entry.ts';
export { ObservationLimit } from './envs/wrappers/observation-limit.ts';
export { RecordEpisodes, type RecordEpisodesOptions } from './envs/wrappers/record-episodes.ts';
export { TimeLimit } from './envs/wrappers/time-limit.ts';
export type {
  ExperienceModel,
  ExperiencePrediction,
  ExperienceRequest,
} from './experience/experience-model.ts';
export { ExperienceModelError } from './experience/experience-model.ts';
export { LlmExperienceModel, type LlmExperienceModelOptions } from './experience/llm/llm-model.ts';
export {
  DEFAULT_LIMITS,
  type DemonstrationFormatter,
  type TextLimits,
} from './experience/llm/prompt.ts';
export { llmFreeModel } from './experience/llm-free.ts';
export { NearestNeighborModel } from './experience/nearest-neighbor-model.ts';
export { SyntheticEnv, type SyntheticEnvOptions } from './experience/synthetic-env.ts';
export { AiSdkBackend, AiSdkClient, type AiSdkClientOptions } from './llm/ai-sdk-client.ts';
export type { BackendAnswer, BackendRequest, ChatBackend } from './llm/backend.ts';
export type { ResponseCache } from './llm/cache.ts';
export type {
  ChatMessage,
  ChatRole,
  FinishReason,
  LlmClient,
  LlmRequest,
  LlmResponse,
  SamplingOptions,
  TokenLogprob,
  TokenUsage,
} from './llm/client.ts';
export type { OutputProblem } from './llm/errors.ts';
export {
  LlmAuthError,
  LlmConnectionError,
  LlmError,
  LlmOutputError,
  LlmRateLimitError,
  LlmServerError,
  LlmTimeoutError,
} from './llm/errors.ts';
export type { ConcurrencyLimiter } from './llm/limiter.ts';
export { LlamaCppClient, type LlamaCppClientOptions } from './llm/llama-cpp-client.ts';
export type { LlamaGpu } from './llm/llama-cpp-loader.ts';
export type { StructuredOutputMode } from './llm/openai-client.ts';
export { OpenAiClient, type OpenAiClientOptions } from './llm/openai-client.ts';
export { type ResilientClientOptions, ResilientLlmClient } from './llm/resilient-client.ts';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './llm/retry.ts';
export { globalLlmStats, LlmStats, type LlmStatsSnapshot, type TokenPrices } from './llm/stats.ts';
export { loadRunConfig, parseRunConfig, RunConfig } from './pipeline/config.ts';
export { type EnvSetup, type Evaluation, envSetup, offlineData } from './pipeline/experiment.ts';
export {
  CRITERIA,
  type Criterion,
  JudgeAnswer,
  type JudgeLimits,
  judgeGroup,
  judgeMessages,
  RUBRIC,
} from './pipeline/quality/judge.ts';
export { lensFor } from './pipeline/quality/lenses.ts';
export {
  consistencyChecks,
  entityVocabulary,
  hallucinatedEntities,
  type ProxyValue,
  type QualityProxies,
  qualityProxies,
} from './pipeline/quality/proxies.ts';
export {
  type JudgeSummary,
  type QualityJudgeOptions,
  type QualityOptions,
  type QualityResult,
  type QualityRow,
  runQuality,
} from './pipeline/quality/quality.ts';
export { qualityTable, writeQualityReport } from './pipeline/quality/quality-report.ts';
export { type RunHooks, type RunSummary, runPipeline } from './pipeline/run.ts';
export { ChoicePolicy, type ChoicePolicyOptions } from './policy/choice/choice-policy.ts';
export type { FeatureSizes } from './policy/choice/features.ts';
export { PolicyOutputError } from './policy/errors.ts';
export { LlmPolicy, type LlmPolicyOptions } from './policy/llm/llm-policy.ts';
export type {
  DecisionEvaluation,
  Policy,
  PolicyAction,
  PolicyContext,
  RecordedDecision,
  TrainablePolicy,
} from './policy/policy.ts';
export { hasExpert, makePolicy, POLICY_NAMES, type PolicyOptions } from './policy/registry.ts';
export type { AnnOptions } from './replay/ann-index.ts';
export {
  BufferConnectionError,
  BufferLockedError,
  BufferNotFoundError,
} from './replay/buffer-errors.ts';
export type { BufferStats } from './replay/buffer-stats.ts';
export type { RetrieveFilter } from './replay/filter-index.ts';
export { migrateBuffer } from './replay/migrate-buffer.ts';
export { type OpenBufferOptions, ReplayBuffer } from './replay/open-buffer.ts';
export { type PostgresBufferOptions, PostgresReplayBuffer } from './replay/postgres-buffer.ts';
export type { AddResult, TrajectoryFilter } from './replay/replay-buffer.ts';
export type { SampleOptions } from './replay/sampling.ts';
export { type SqliteBufferOptions, SqliteReplayBuffer } from './replay/sqlite-buffer.ts';
export type { RetrievedTransition, StoredTransition } from './replay/stored-transition.ts';
export {
  type ThreadedEncoderOptions,
  ThreadedTransitionEncoder,
} from './replay/threaded-encoder.ts';
export type { KeyEncoder, TransitionKey } from './replay/transition-encoder.ts';
export { type BehaviourCloningOptions, behaviourCloning } from './rl/bc.ts';
export { type CollectOptions, collect } from './rl/collect.ts';
export {
  type DpoOptions,
  type DpoResult,
  directPreferenceOptimization,
  dpoLoss,
  NoPreferencePairsError,
} from './rl/dpo.ts';
export { type EpisodeOptions, runEpisode } from './rl/episode.ts';
export {
  expertPreferencePairs,
  offlinePreferencePairs,
  type PreferencePair,
  type PreferencePairOptions,
} from './rl/preference-pairs.ts';
export type { RolloutStep } from './rl/rollout.ts';
export { type RolloutEpisode, type RolloutOptions, rollout } from './rl/rollout.ts';
export type { TrainerIO, TrainerPolicy } from './rl/trainer.ts';
export {
  DEFAULT_TRAINER_CONFIG,
  type EvalMetrics,
  evaluate,
  type IterationMetrics,
  type TrainerConfig,
  train,
} from './rl/trainer.ts';
export type { BcMetrics, UpdateMetrics } from './rl/update.ts';
