import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../core/errors.ts';
import { ChoicePolicy } from './choice/choice-policy.ts';
import type { Policy } from './policy.ts';
import { makePolicy, POLICY_NAMES, type PolicyOptions } from './registry.ts';

/**
 * A policy from a name (`random`, `expert`, `llm`) or from a folder a training run saved one in (the run
 * folder itself, its `checkpoint/`, or any folder with a `policy.json`). Saved policies act
 * greedily (temperature 0) unless told otherwise.
 */
export async function loadPolicy(
  spec: string,
  options: PolicyOptions & { temperature?: number },
): Promise<Policy> {
  for (const dir of [spec, join(spec, 'checkpoint')]) {
    if (existsSync(join(dir, 'policy.json')))
      return ChoicePolicy.load(dir, { temperature: options.temperature ?? 0 });
  }
  if (POLICY_NAMES.includes(spec)) return makePolicy(spec, options);
  throw new ConfigError(
    `"${spec}" is neither a policy name (${POLICY_NAMES.join(', ')}) nor a folder with a saved policy (policy.json or checkpoint/policy.json).`,
  );
}
