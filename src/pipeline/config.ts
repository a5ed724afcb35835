import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { ConfigError } from '../core/errors.ts';
import type { EnvEntry } from '../envs/env.ts';
import { isModuleRef, MODULE_PREFIX, parseModuleRef } from '../envs/module-entry.ts';
import { registerEnv, resolveEnvRef } from '../envs/registry.ts';
import { BRANCH_PICKS } from '../experience/branch-points.ts';
import { EXPERIENCE_CHOICES } from '../experience/llm-free.ts';

const LlmConfig = z.strictObject({
  /** OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1 (vLLM). */
  url: z.string().url().optional(),
  model: z.string().min(1).optional(),
  apiKey: z.string().optional(),
  /** A local GGUF file for the embedded llama.cpp backend instead of a server. */
  gguf: z.string().optional(),
  timeoutMs: z.number().int().positive().default(120_000),
  maxConcurrency: z.number().int().positive().default(8),
  /**
   * Predictions sampled per synthetic step; their disagreement is the step's uncertainty
   * (`LlmExperienceModelOptions.samples`). Default 1: off, one call a step.
   */
  samples: z.number().int().positive().optional(),
});

/** Share of real demonstrations when co-evolving: round(0.75 · k) of k = 4 real, one synthetic. */
export const DEFAULT_REAL_SHARE = 0.75;

/** An entry handed over in code (`runPipeline({ env: entry, … })`): it must carry its name. */
const EntryInCode = z.custom<EnvEntry & { name: string }>(
  (value) =>
    typeof value === 'object' &&
    value !== null &&
    typeof (value as EnvEntry).make === 'function' &&
    typeof (value as EnvEntry).name === 'string',
  'an env entry in code needs name, make, tasks, maxSteps and description',
);

/** The `dreamgym run` config: every field has a default; unknown fields are errors. */
export const RunConfig = z.strictObject({
  /**
   * The env: a name (`webshop`, `web:forum`, `agentgym:NAME@URL`, a module path `./my-env.ts`),
   * `{ module: PATH, export?: NAME }` for a user's module (PATH relative to the config file), or,
   * in code, an `EnvEntry` with a `name`.
   */
  env: z
    .union([
      z.string().min(1),
      z.strictObject({ module: z.string().min(1), export: z.string().min(1).optional() }),
      EntryInCode,
    ])
    .default('webshop'),
  seed: z.number().int().nonnegative().default(0),
  offline: z
    .strictObject({
      /** Use this trajectory JSONL as the offline data instead of collecting it. */
      data: z.string().optional(),
      /**
       * Who collects the offline data when `data` is not given: `expert` (the env's scripted
       * expert, with mistake rate `epsilon`), `random`, `llm`, or a saved policy's folder.
       */
      policy: z.string().min(1).default('expert'),
      episodes: z.number().int().positive().default(500),
      epsilon: z.number().min(0).max(1).default(0.3),
    })
    .prefault({}),
  experienceModel: z
    .strictObject({
      kind: z.enum(['llm-free', 'llm']).default('llm-free'),
      /**
       * kind llm-free: which model (default `auto`): `auto` the family's hand-written model where
       * it has one, else the generic one learnt from the buffer; `generic` the generic one for any
       * family; `nearest` the nearest-neighbour baseline.
       */
      model: z.enum(EXPERIENCE_CHOICES).optional(),
      /** Demonstrations retrieved per synthetic step (0: the no-retrieval ablation). */
      k: z.number().int().nonnegative().default(4),
      /** Show the model the episode's history (false: the no-history ablation). */
      history: z.boolean().default(true),
      /**
       * Store synthetic episodes in the buffer, where later steps retrieve them (co-evolution).
       * false with realShare 1 freezes the buffer at the offline data (the − co-evolution ablation).
       */
      writeBack: z.boolean().default(true),
      /**
       * Share of each step's demonstrations that are real; the rest are synthetic transitions
       * written back so far (the paper mixes both). 1: real only.
       */
      realShare: z.number().min(0).max(1).default(DEFAULT_REAL_SHARE),
      llm: LlmConfig.optional(),
    })
    .prefault({}),
  curriculum: z
    .strictObject({
      mode: z.enum(['off', 'variance', 'random']).default('variance'),
      /** Share λ of generated tasks in each iteration's batch. */
      generatedShare: z.number().min(0).max(1).default(0.25),
    })
    .prefault({}),
  train: z
    .strictObject({
      /**
       * `grpo` or `ppo` in the synthetic env (DreamGym); `dpo`, the offline baseline: behaviour
       * cloning on the offline data, then DPO on its preference pairs (the env's expert labels
       * them where it has one), no synthetic env.
       */
      algo: z.enum(['grpo', 'ppo', 'dpo']).default('grpo'),
      /** DPO's β (algo dpo only). Default 1, the choice policy's (see CHOICE_POLICY_DPO_BETA). */
      beta: z.number().positive().optional(),
      iterations: z.number().int().positive().default(30),
      tasksPerIteration: z.number().int().positive().default(16),
      groupSize: z.number().int().positive().default(8),
      epochs: z.number().int().positive().default(4),
      learningRate: z.number().positive().default(1e-3),
      entropyCoef: z.number().nonnegative().default(0.01),
      /** GRPO: leave groups whose rewards are all equal out of the update (DAPO's filter). */
      dropUninformativeGroups: z.boolean().default(true),
      /** β of the KL penalty towards the policy as training starts (GRPO's π_ref); 0 none. */
      klCoef: z.number().nonnegative().default(0),
      /**
       * Where RL starts: `scratch` (random weights) or `bc` (behaviour cloning on the offline
       * data first, the SFT start of the paper's agents; pair it with klCoef to stay near it).
       */
      start: z.enum(['scratch', 'bc']).default('scratch'),
      /**
       * Model-based selection: the tasks of the last `validationTasks` offline episodes are held
       * out of training and played in the synthetic env at the start and every
       * `evaluation.every` iterations; the run ends with the best of those weights (the start's
       * where none beat it). No real step chooses. Off by default.
       */
      keepBest: z
        .strictObject({ validationTasks: z.number().int().positive().default(50) })
        .optional(),
      /**
       * Branched rollouts in the synthetic env: `share` of each iteration's groups start from real
       * states of the buffer, run at most `horizon` steps past them; `pick` chooses the states
       * (`uniform`, or `divergence`: where the policy departs from the real next action).
       * S2R never branches (a real env cannot start from a recorded state).
       */
      branching: z
        .strictObject({
          share: z.number().min(0).max(1).default(0),
          horizon: z.number().int().positive().default(5),
          pick: z.enum(BRANCH_PICKS).default('uniform'),
        })
        .prefault({}),
    })
    .prefault({}),
  evaluation: z
    .strictObject({
      episodes: z.number().int().positive().default(200),
      every: z.number().int().nonnegative().default(5),
    })
    .prefault({}),
  /** Sim-to-real: continue training in the real env within this many real steps. */
  s2r: z.strictObject({ realBudget: z.number().int().positive() }).optional(),
});

export type RunConfig = z.infer<typeof RunConfig>;

/** Reads a JSON or YAML run config; any problem names the file and the field. */
export async function loadRunConfig(path: string): Promise<RunConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read run config ${path}: ${(error as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = /\.ya?ml$/i.test(path) ? parseYaml(text) : JSON.parse(text);
  } catch (error) {
    throw new ConfigError(
      `${path} is not valid ${/\.ya?ml$/i.test(path) ? 'YAML' : 'JSON'}: ${(error as Error).message}`,
    );
  }
  return parseRunConfig(raw ?? {}, path, dirname(resolve(path)));
}

/**
 * Validates a run config object (from JSON or YAML), naming the first wrong field and its fix.
 * `baseDir` (the config file's folder) resolves a user's env module path.
 */
export function parseRunConfig(raw: unknown, source = 'config', baseDir?: string): RunConfig {
  const parsed = RunConfig.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (i) => `${i.path.join('.') || '(top level)'}: ${i.message}`,
    );
    throw new ConfigError(`${source}: ${problems.join('; ')}`);
  }
  const config = parsed.data;
  // A module path is relative to the config file that names it, not to wherever the run starts.
  if (baseDir !== undefined && typeof config.env === 'string' && isModuleRef(config.env)) {
    const { path, exportName } = parseModuleRef(config.env, baseDir);
    config.env = { module: path, ...(exportName !== undefined && { export: exportName }) };
  } else if (baseDir !== undefined && typeof config.env === 'object' && 'module' in config.env) {
    config.env = { ...config.env, module: resolve(baseDir, config.env.module) };
  }
  if (config.train.algo === 'dpo' && config.s2r) {
    throw new ConfigError(
      `${source}: s2r continues a GRPO or PPO run in the real env; drop s2r, or set train.algo to grpo or ppo.`,
    );
  }
  if (config.train.keepBest && config.evaluation.every === 0) {
    throw new ConfigError(
      `${source}: train.keepBest chooses among evaluations; set evaluation.every to 1 or more (how often the held-out offline tasks are played in the synthetic env).`,
    );
  }
  if (config.train.algo === 'dpo' && (config.train.keepBest || config.train.start === 'bc')) {
    throw new ConfigError(
      `${source}: train.start and train.keepBest shape a GRPO or PPO run; a DPO run always starts from behaviour cloning and has no iterations to choose from: drop them.`,
    );
  }
  if (config.train.beta !== undefined && config.train.algo !== 'dpo') {
    throw new ConfigError(`${source}: train.beta is DPO's β; drop it, or set train.algo to dpo.`);
  }
  if (config.experienceModel.kind === 'llm') {
    if (config.experienceModel.model !== undefined) {
      throw new ConfigError(
        `${source}: experienceModel.model picks the LLM-free model (${EXPERIENCE_CHOICES.join(', ')}); drop it, or set kind to llm-free.`,
      );
    }
    const llm = config.experienceModel.llm;
    if (!llm || (!llm.gguf && !(llm.url && llm.model))) {
      throw new ConfigError(
        `${source}: experienceModel.llm needs url and model (an OpenAI-compatible server) or gguf (a local model file) when kind is llm.`,
      );
    }
  }
  return config;
}

/**
 * The name the rest of a run knows its env by: a string ref is resolved (a module path loaded and
 * registered), `{ module, export }` loaded, an entry in code registered under its `name`.
 */
export async function resolveRunEnv(env: RunConfig['env']): Promise<string> {
  if (typeof env === 'string') return resolveEnvRef(env);
  if ('make' in env) return registerEnv(env);
  return resolveEnvRef(`${MODULE_PREFIX}${env.module}${env.export ? `#${env.export}` : ''}`);
}
