import type { Provenance, Step } from '../../core/types.ts';
import type { ReplayBuffer } from '../../replay/replay-buffer.ts';
import { type StoredTransition, stepOf } from '../../replay/stored-transition.ts';

export const REAL: readonly Provenance[] = ['real-offline', 'real-online'];

/** A stored real transition and the steps of its episode before it (the model's history). */
export interface RealStep {
  transition: StoredTransition;
  history: Step[];
}

/**
 * Every real transition in the buffer (of one env family, if given) with its history, episode by
 * episode, oldest first. Reads one trajectory at a time, so the caller may write to the buffer
 * (store reasoning) between steps.
 */
export async function* realSteps(buffer: ReplayBuffer, env?: string): AsyncGenerator<RealStep> {
  const ids = await buffer.trajectoryIds({ provenance: REAL, ...(env !== undefined && { env }) });
  for (const id of ids) {
    const stored = await buffer.trajectoryTransitions(id);
    const steps = stored.map(stepOf);
    for (const [t, transition] of stored.entries())
      yield { transition, history: steps.slice(0, t) };
  }
}

/** The number of real transitions `realSteps` walks, from the buffer's counts. */
export async function realStepCount(buffer: ReplayBuffer, env?: string): Promise<number> {
  let count = 0;
  for (const [family, byProvenance] of Object.entries((await buffer.stats()).byEnv)) {
    if (env !== undefined && family !== env) continue;
    for (const provenance of REAL) count += byProvenance[provenance]?.transitions ?? 0;
  }
  return count;
}
