import { ConfigError } from '../core/errors.ts';
import { type EnvEntry, type EnvOptions, envEntry } from '../envs/registry.ts';
import { TimeLimit } from '../envs/wrappers/time-limit.ts';
import { ReplayBuffer } from '../replay/replay-buffer.ts';
import { llmFreeModel } from './llm-free.ts';
import { SyntheticEnv } from './synthetic-env.ts';

/** True for `synthetic:FAMILY` env names. */
export function isSyntheticRef(name: string): boolean {
  return name.startsWith('synthetic:');
}

/**
 * The registry entry of `synthetic:FAMILY` (e.g. `synthetic:webshop`): SyntheticEnvs over the
 * replay buffer at `options.db` with the LLM-free experience model learnt from it, the family's
 * step limit, its public train/test task lists, and every finished episode written back to the
 * buffer as `synthetic` (so experience served to remote trainers lands where local experience does).
 */
export function syntheticEntry(name: string, options: EnvOptions & { db?: string }): EnvEntry {
  const family = name.slice('synthetic:'.length);
  if (!options.db)
    throw new ConfigError(
      `${name} learns from a replay buffer: pass --db PATH (see dreamgym buffer import).`,
    );
  const real = envEntry(family);
  const buffer = ReplayBuffer.open({ path: options.db });
  if ((buffer.stats().byEnv[family]?.['real-offline']?.transitions ?? 0) === 0) {
    throw new ConfigError(
      `${options.db} holds no real-offline ${family} transitions; import offline data first (dreamgym collect, then dreamgym buffer import).`,
    );
  }
  const model = llmFreeModel(family, buffer);
  const tasks = real.tasks(options);
  return {
    maxSteps: real.maxSteps,
    description: `synthetic ${family}: the LLM-free experience model over ${options.db}`,
    make: (o) =>
      new TimeLimit(
        new SyntheticEnv({
          env: family,
          model,
          buffer,
          tasks,
          writeBack: true,
          policyId: 'remote',
        }),
        o.maxSteps ?? real.maxSteps,
      ),
    tasks: () => tasks,
  };
}
