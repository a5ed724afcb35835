import { ConfigError } from '../core/errors.ts';
import { envEntry } from '../envs/registry.ts';
import { ForumExpert } from './experts/forum-expert.ts';
import { HouseholdExpert } from './experts/household-expert.ts';
import { HouseholdExplorer } from './experts/household-explorer.ts';
import { StoreExpert } from './experts/store-expert.ts';
import { WebShopExpert } from './experts/webshop-expert.ts';
import { LlmPolicy, type LlmPolicyOptions } from './llm/llm-policy.ts';
import type { Policy } from './policy.ts';
import { RandomPolicy } from './random-policy.ts';

/** What `makePolicy` may need: the env, an expert's mistake rate, or the LLM policy's settings. */
export interface PolicyOptions {
  /** Env family the policy will act in (experts are per env). */
  env: string;
  /** Experts' mistake rate. */
  epsilon?: number;
  /** The `llm` policy's model and settings. */
  llmPolicy?: LlmPolicyOptions;
}

const EXPERTS: Record<string, (o: PolicyOptions) => Policy> = {
  webshop: (o) => new WebShopExpert({ epsilon: o.epsilon ?? 0 }),
  household: (o) => new HouseholdExpert({ epsilon: o.epsilon ?? 0 }),
  'web:forum': (o) => new ForumExpert({ epsilon: o.epsilon ?? 0 }),
  'web:store': (o) => new StoreExpert({ epsilon: o.epsilon ?? 0 }),
};

const POLICIES: Record<string, (o: PolicyOptions) => Policy> = {
  expert: (o) => {
    const make = EXPERTS[o.env];
    if (make) return make(o);
    const entry = envEntry(o.env);
    if (entry.expert) return entry.expert({ epsilon: o.epsilon ?? 0 });
    throw new ConfigError(
      `env "${o.env}" has no scripted expert (its entry exports none; built-in experts: ${Object.keys(EXPERTS).join(', ')}). Offline data can come from another policy instead: random, llm (--llm-url, --llm-model) or a saved policy's folder, or from a file (--data FILE, e.g. transcripts brought in with dreamgym buffer import).`,
    );
  },
  explorer: (o) => {
    if (o.env !== 'household') {
      throw new ConfigError(
        `the explorer policy plays household envs; for "${o.env}" use expert, random or llm.`,
      );
    }
    return new HouseholdExplorer({ epsilon: o.epsilon ?? 0 });
  },
  random: () => new RandomPolicy(),
  llm: (o) => {
    if (!o.llmPolicy) {
      throw new ConfigError(
        'the llm policy needs a model: pass --llm-url URL --llm-model NAME (in code, llmPolicy: { llm }).',
      );
    }
    return new LlmPolicy(o.llmPolicy);
  },
};

/** True when `env` has a scripted expert (built in, or on its entry). */
export function hasExpert(env: string): boolean {
  return env in EXPERTS || envEntry(env).expert !== undefined;
}

/** The names `makePolicy` knows. */
export const POLICY_NAMES = Object.keys(POLICIES);

/** A policy by name; an unknown name lists the known ones. */
export function makePolicy(name: string, options: PolicyOptions): Policy {
  const make = POLICIES[name];
  if (!make)
    throw new ConfigError(`unknown policy "${name}"; available: ${POLICY_NAMES.join(', ')}.`);
  return make(options);
}
